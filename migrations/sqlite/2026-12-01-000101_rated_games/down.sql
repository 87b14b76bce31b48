ALTER TABLE games DROP COLUMN rating_range;
ALTER TABLE games DROP COLUMN rated;
