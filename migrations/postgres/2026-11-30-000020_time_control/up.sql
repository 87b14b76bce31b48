-- Time controls and deadlines. The time control is in each game's `created` event; the
-- projection keeps it (`time_control`, JSON) with the deadline of the seat to move
-- (`due_at`), written with every append. `turn_order_at` orders `/v1/me/games?turn=mine`
-- (the deadline, or long after the last change for games without one).
-- `due_lease_until` is not part of the projection: the due-work worker sets it when it
-- claims a game (FOR UPDATE SKIP LOCKED), so that other instances leave the game alone
-- until the lease ends.
ALTER TABLE games ADD COLUMN time_control TEXT NULL;
ALTER TABLE games ADD COLUMN due_at TIMESTAMP NULL;
ALTER TABLE games ADD COLUMN turn_order_at TIMESTAMP NOT NULL DEFAULT '3000-01-01 00:00:00';
ALTER TABLE games ADD COLUMN due_lease_until TIMESTAMP NULL;
UPDATE games SET turn_order_at = updated_at + INTERVAL '365000 days';
ALTER TABLE games ALTER COLUMN turn_order_at DROP DEFAULT;
CREATE INDEX games_due_idx ON games (due_at) WHERE due_at IS NOT NULL;
CREATE INDEX games_turn_order_idx ON games (to_move_user_id, turn_order_at, id);
