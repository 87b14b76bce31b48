-- Vacations: while one runs, the clocks of the player's seats stop (see games::timing).
CREATE TABLE vacations (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id),
    starts_at   TIMESTAMP NOT NULL,
    ends_at     TIMESTAMP NOT NULL,
    created_at  TIMESTAMP NOT NULL
);
CREATE INDEX vacations_user_idx ON vacations (user_id, ends_at);
