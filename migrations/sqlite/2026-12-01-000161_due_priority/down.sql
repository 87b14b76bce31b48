DROP INDEX games_bots_only_idx;
DROP INDEX games_created_by_idx;
ALTER TABLE games DROP COLUMN due_priority;
