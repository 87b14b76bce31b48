-- Accounts and authentication. Ids are UUID text, times are UTC `TIMESTAMP`s (the types
-- both backends share; see api/src/schema.rs).

CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    username      TEXT NOT NULL,
    -- the username lower-cased: usernames are unique case-insensitively
    username_key  TEXT NOT NULL UNIQUE,
    email         TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    created_at    TIMESTAMP NOT NULL,
    updated_at    TIMESTAMP NOT NULL
);

-- A login session: one family of rotating refresh tokens. Revoking it (logout, reuse of a
-- refresh token, password change) invalidates its refresh tokens and its access tokens.
CREATE TABLE sessions (
    id            TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at    TIMESTAMP NOT NULL,
    last_used_at  TIMESTAMP NOT NULL,
    revoked_at    TIMESTAMP NULL,
    revoked_reason TEXT NULL
);
CREATE INDEX sessions_user_id_idx ON sessions (user_id);

-- Refresh tokens, stored as SHA-256 hex of the token. `used_at` set = rotated away;
-- presenting it again revokes the whole session.
CREATE TABLE refresh_tokens (
    token_hash    TEXT PRIMARY KEY,
    session_id    TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    created_at    TIMESTAMP NOT NULL,
    expires_at    TIMESTAMP NOT NULL,
    used_at       TIMESTAMP NULL
);
CREATE INDEX refresh_tokens_session_id_idx ON refresh_tokens (session_id);

-- Personal access tokens (`djp_...`), stored as SHA-256 hex; scopes space-separated.
CREATE TABLE personal_access_tokens (
    id            TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    scopes        TEXT NOT NULL,
    token_hash    TEXT NOT NULL UNIQUE,
    token_hint    TEXT NOT NULL,
    created_at    TIMESTAMP NOT NULL,
    expires_at    TIMESTAMP NULL,
    last_used_at  TIMESTAMP NULL,
    revoked_at    TIMESTAMP NULL
);
CREATE INDEX personal_access_tokens_user_id_idx ON personal_access_tokens (user_id);
