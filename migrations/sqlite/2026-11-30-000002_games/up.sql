-- Event-sourced games. `game_events` is the source of truth: an append-only log per game,
-- numbered 1, 2, 3... (a game's version is the number of its events). `games` and
-- `game_players` are projections of it, written in the same transaction as each append,
-- for listing and querying. `idempotency_keys` stores the first answer to a write that
-- carried an `Idempotency-Key`, in the same transaction as the write.

CREATE TABLE game_events (
    game_id     TEXT NOT NULL,
    seq         BIGINT NOT NULL,
    kind        TEXT NOT NULL,
    payload     TEXT NOT NULL,
    actor_id    TEXT NULL,
    created_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (game_id, seq),
    CHECK (seq >= 1)
);

CREATE TABLE games (
    id              TEXT PRIMARY KEY,
    status          TEXT NOT NULL,          -- open | active | finished
    visibility      TEXT NOT NULL,          -- public | invite
    invite_code     TEXT NULL,
    ruleset         TEXT NOT NULL,
    seats_in_play   TEXT NOT NULL,          -- e.g. RBYG or RBY
    hostage_seat    TEXT NULL,
    version         BIGINT NOT NULL,
    ply             INTEGER NOT NULL,
    to_move_seat    TEXT NULL,
    to_move_user_id TEXT NULL,
    ruler_seat      TEXT NULL,
    result          TEXT NULL,              -- JSON, set when finished
    created_by      TEXT NOT NULL REFERENCES users (id),
    created_at      TIMESTAMP NOT NULL,
    updated_at      TIMESTAMP NOT NULL
);
CREATE INDEX games_lobby_idx ON games (visibility, status, created_at, id);
CREATE INDEX games_to_move_idx ON games (to_move_user_id, updated_at, id);

CREATE TABLE game_players (
    game_id     TEXT NOT NULL REFERENCES games (id),
    seat        TEXT NOT NULL,
    user_id     TEXT NOT NULL REFERENCES users (id),
    joined_at   TIMESTAMP NOT NULL,
    PRIMARY KEY (game_id, seat),
    UNIQUE (game_id, user_id)
);
CREATE INDEX game_players_user_idx ON game_players (user_id, game_id);

CREATE TABLE idempotency_keys (
    user_id       TEXT NOT NULL REFERENCES users (id),
    key           TEXT NOT NULL,
    request_hash  TEXT NOT NULL,
    status        INTEGER NOT NULL,
    response_body TEXT NOT NULL,
    created_at    TIMESTAMP NOT NULL,
    PRIMARY KEY (user_id, key)
);
