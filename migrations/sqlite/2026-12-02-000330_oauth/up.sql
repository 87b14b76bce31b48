-- OAuth 2.0 (authorization code with PKCE) for third-party apps. The access tokens an app
-- gets are rows of `personal_access_tokens` with the app's `client_id` (NULL: a token the
-- player made by hand); an authorization code is kept, hashed, until an hour after it
-- expires, so that a replay is recognised and revokes the token issued from it.
ALTER TABLE personal_access_tokens ADD COLUMN client_id TEXT NULL;

CREATE TABLE oauth_codes (
    code_hash       TEXT PRIMARY KEY,
    user_id         TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    client_id       TEXT NOT NULL,
    redirect_uri    TEXT NOT NULL,
    scopes          TEXT NOT NULL,
    code_challenge  TEXT NOT NULL,
    created_at      TIMESTAMP NOT NULL,
    expires_at      TIMESTAMP NOT NULL,
    used_at         TIMESTAMP NULL,
    token_id        TEXT NULL
);
CREATE INDEX oauth_codes_user_id_idx ON oauth_codes (user_id, expires_at);
