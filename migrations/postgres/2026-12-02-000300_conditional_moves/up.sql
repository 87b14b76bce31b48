-- Conditional moves: a seat's private tree of expected lines and answers (see
-- api/src/model/conditional.rs). One tree per game and seat; only its player reads it.
CREATE TABLE conditional_moves (
    game_id          TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat             TEXT NOT NULL,
    user_id          TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- The game's version, and its number of actions, the lines start from.
    base_version     BIGINT NOT NULL,
    base_actions     BIGINT NOT NULL,
    -- The game's version the tree was last matched at (the worker looks again when the
    -- game moved past it).
    checked_version  BIGINT NOT NULL,
    -- One line of text per line of the tree.
    lines            TEXT NOT NULL,
    -- Changes on every store, advance and check: the worker's writes are guarded by it.
    revision         BIGINT NOT NULL,
    updated_at       TIMESTAMP NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX conditional_moves_user_idx ON conditional_moves (user_id);
