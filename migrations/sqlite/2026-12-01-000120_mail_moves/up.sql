-- Moves by mail. A turn mail's reply token is derived (HMAC of the notification id);
-- only its SHA-256 (hex) is stored, with what it is bound to.
CREATE TABLE mail_move_tokens (
    token_hash      TEXT PRIMARY KEY,
    notification_id TEXT NOT NULL,
    game_id         TEXT NOT NULL,
    seat            TEXT NOT NULL,
    user_id         TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    version         BIGINT NOT NULL,
    created_at      TIMESTAMP NOT NULL,
    expires_at      TIMESTAMP NOT NULL,
    used_at         TIMESTAMP NULL,
    -- replies refused for a mistake (a typo, an illegal move): locked at the limit
    failures        INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX mail_move_tokens_game_idx ON mail_move_tokens (game_id, version);

-- Inbound mails seen (Message-ID): the same message delivered twice is applied once.
CREATE TABLE inbound_mails (
    message_id  TEXT PRIMARY KEY,
    received_at TIMESTAMP NOT NULL,
    outcome     TEXT NOT NULL
);
