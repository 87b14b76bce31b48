-- Tournaments: an event's log is its truth (tournament_events, like game_events); the
-- `tournaments` row is the projection lists read, and its `version` is what a write
-- claims (UPDATE ... WHERE version = expected), so a round is paired exactly once.
CREATE TABLE tournaments (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    organiser_id  TEXT NOT NULL,
    format        TEXT NOT NULL,
    status        TEXT NOT NULL,
    capacity      INTEGER NOT NULL,
    players       INTEGER NOT NULL,
    rounds_paired INTEGER NOT NULL,
    starts_at     TIMESTAMP NULL,
    version       BIGINT NOT NULL,
    created_at    TIMESTAMP NOT NULL,
    updated_at    TIMESTAMP NOT NULL
);
CREATE INDEX tournaments_status_idx ON tournaments (status, created_at);
CREATE INDEX tournaments_organiser_idx ON tournaments (organiser_id, status);

CREATE TABLE tournament_events (
    tournament_id TEXT NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    seq           BIGINT NOT NULL,
    kind          TEXT NOT NULL,
    payload       TEXT NOT NULL,
    actor_id      TEXT NULL,
    created_at    TIMESTAMP NOT NULL,
    PRIMARY KEY (tournament_id, seq)
);

-- Who is entered where (for "my events" and a closed account's withdrawals).
CREATE TABLE tournament_players (
    tournament_id TEXT NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    user_id       TEXT NOT NULL,
    PRIMARY KEY (tournament_id, user_id)
);
CREATE INDEX tournament_players_user_idx ON tournament_players (user_id);
