-- Time controls and deadlines (see the PostgreSQL migration of the same name).
ALTER TABLE games ADD COLUMN time_control TEXT NULL;
ALTER TABLE games ADD COLUMN due_at TIMESTAMP NULL;
ALTER TABLE games ADD COLUMN turn_order_at TIMESTAMP NOT NULL DEFAULT '3000-01-01 00:00:00';
ALTER TABLE games ADD COLUMN due_lease_until TIMESTAMP NULL;
UPDATE games SET turn_order_at = strftime('%Y-%m-%d %H:%M:%f', updated_at, '+365000 days');
CREATE INDEX games_due_idx ON games (due_at) WHERE due_at IS NOT NULL;
CREATE INDEX games_turn_order_idx ON games (to_move_user_id, turn_order_at, id);
