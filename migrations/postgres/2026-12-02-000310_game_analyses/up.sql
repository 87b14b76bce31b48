-- The engine's analyses of games (issue 37): one row per game and engine version, worked
-- on in the background as due work (`due_at`, `lease_until`, like the other queues), and
-- one row per analysed move. A game analysed by an older engine is analysed again.
CREATE TABLE game_analyses (
    id             TEXT PRIMARY KEY,
    game_id        TEXT NOT NULL,
    engine_version TEXT NOT NULL,
    -- queued, running, done or failed
    status         TEXT NOT NULL,
    -- the account that asked (its quota); NULL for a re-analysis by a newer engine
    requested_by   TEXT NULL,
    requested_at   TIMESTAMP NOT NULL,
    -- the game's version analysed and its number of moves
    game_version   BIGINT NOT NULL,
    plies          INTEGER NOT NULL,
    plies_done     INTEGER NOT NULL DEFAULT 0,
    -- when the worker may take it (NULL: nothing left to do), and its claim
    due_at         TIMESTAMP NULL,
    lease_until    TIMESTAMP NULL,
    finished_at    TIMESTAMP NULL,
    -- the values of the final position (JSON), once done
    last_values    TEXT NULL,
    error          TEXT NULL,
    UNIQUE (game_id, engine_version)
);
CREATE INDEX game_analyses_due_idx ON game_analyses (due_at);
CREATE INDEX game_analyses_requester_idx ON game_analyses (requested_by, requested_at);
CREATE INDEX game_analyses_finished_idx ON game_analyses (finished_at);

CREATE TABLE game_analysis_moves (
    analysis_id TEXT NOT NULL REFERENCES game_analyses (id) ON DELETE CASCADE,
    ply         INTEGER NOT NULL,
    body        TEXT NOT NULL,
    PRIMARY KEY (analysis_id, ply)
);
