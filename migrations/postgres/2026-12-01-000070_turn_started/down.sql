ALTER TABLE games DROP COLUMN turn_started_at;
