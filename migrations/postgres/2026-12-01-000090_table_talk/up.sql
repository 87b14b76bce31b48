-- Table talk (issue 21): messages between the players of a game, in their own sequence
-- per game (never in the event log), mutes between players, and reports to the operator.
CREATE TABLE messages (
    id            TEXT PRIMARY KEY,
    game_id       TEXT NOT NULL REFERENCES games (id),
    seq           BIGINT NOT NULL,
    sender_id     TEXT NOT NULL REFERENCES users (id),
    sender_seat   TEXT NOT NULL,
    -- The recipient seats' letters (e.g. `BY`); empty: the whole table.
    recipients    TEXT NOT NULL,
    body          TEXT NOT NULL,
    game_version  BIGINT NOT NULL,
    created_at    TIMESTAMP NOT NULL,
    hidden_at     TIMESTAMP,
    UNIQUE (game_id, seq)
);
CREATE INDEX messages_sender_idx ON messages (sender_id, created_at);
CREATE TABLE mutes (
    user_id     TEXT NOT NULL REFERENCES users (id),
    muted_id    TEXT NOT NULL REFERENCES users (id),
    created_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (user_id, muted_id)
);
CREATE TABLE message_reports (
    id           TEXT PRIMARY KEY,
    message_id   TEXT NOT NULL REFERENCES messages (id),
    reporter_id  TEXT NOT NULL REFERENCES users (id),
    reason       TEXT,
    context      TEXT NOT NULL,
    created_at   TIMESTAMP NOT NULL,
    UNIQUE (message_id, reporter_id)
);
