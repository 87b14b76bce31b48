DROP INDEX games_turn_order_idx;
DROP INDEX games_due_idx;
ALTER TABLE games DROP COLUMN due_lease_until;
ALTER TABLE games DROP COLUMN turn_order_at;
ALTER TABLE games DROP COLUMN due_at;
ALTER TABLE games DROP COLUMN time_control;
