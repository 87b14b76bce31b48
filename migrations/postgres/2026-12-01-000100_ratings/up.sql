-- Ratings of rated games (see api/src/ratings): each player's current skill, and each
-- rated game's changes (before and after, per player), in the order they were applied.
CREATE TABLE player_ratings (
    user_id      TEXT PRIMARY KEY REFERENCES users (id),
    mu           DOUBLE PRECISION NOT NULL,
    sigma        DOUBLE PRECISION NOT NULL,
    -- The shown rating, mu - 3 sigma (the leaderboard's order).
    rating       DOUBLE PRECISION NOT NULL,
    games        BIGINT NOT NULL,
    wins         BIGINT NOT NULL,
    last_game_at TIMESTAMP NOT NULL
);
CREATE INDEX player_ratings_board_idx ON player_ratings (rating DESC, user_id);

CREATE TABLE rating_changes (
    game_id      TEXT NOT NULL,
    user_id      TEXT NOT NULL REFERENCES users (id),
    -- The order of application over every game (games sharing no player may share it).
    applied_seq  BIGINT NOT NULL,
    -- 1 is first; players sharing a place share the number.
    place        INTEGER NOT NULL,
    players      INTEGER NOT NULL,
    mu_before    DOUBLE PRECISION NOT NULL,
    sigma_before DOUBLE PRECISION NOT NULL,
    mu_after     DOUBLE PRECISION NOT NULL,
    sigma_after  DOUBLE PRECISION NOT NULL,
    ended_at     TIMESTAMP NOT NULL,
    PRIMARY KEY (game_id, user_id)
);
CREATE INDEX rating_changes_user_idx ON rating_changes (user_id, applied_seq);
CREATE INDEX rating_changes_seq_idx ON rating_changes (applied_seq);
