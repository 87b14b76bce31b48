-- Verified addresses and the single-use tokens mailed to owners (address verification,
-- password reset). Only a token's SHA-256 (hex) is stored. Accounts that existed before
-- are not verified: their owners ask for a verification mail (POST /v1/me/email-verification).
ALTER TABLE users ADD COLUMN email_verified_at TIMESTAMP NULL;

CREATE TABLE account_tokens (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    purpose     TEXT NOT NULL,            -- verify_email | password_reset
    token_hash  TEXT NOT NULL UNIQUE,
    -- the address the mail went to (a verification confirms exactly this address)
    email       TEXT NOT NULL,
    created_at  TIMESTAMP NOT NULL,
    expires_at  TIMESTAMP NOT NULL,
    used_at     TIMESTAMP NULL
);
CREATE INDEX account_tokens_user_idx ON account_tokens (user_id, purpose, created_at);
