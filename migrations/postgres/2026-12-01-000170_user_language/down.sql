ALTER TABLE users DROP COLUMN time_zone;
ALTER TABLE users DROP COLUMN language;
