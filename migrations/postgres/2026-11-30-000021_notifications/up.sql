-- The notification outbox and in-app feed. Rows are written in the same transaction as
-- the game events that cause them (by the command layer), so none is lost or invented.
-- `id` is stable (derived from game, version, kind and user): receivers de-duplicate by it.
CREATE TABLE notifications (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id),
    kind        TEXT NOT NULL,
    game_id     TEXT NULL,
    version     BIGINT NULL,
    payload     TEXT NOT NULL,          -- JSON object
    created_at  TIMESTAMP NOT NULL,
    read_at     TIMESTAMP NULL
);
CREATE INDEX notifications_user_idx ON notifications (user_id, created_at, id);
