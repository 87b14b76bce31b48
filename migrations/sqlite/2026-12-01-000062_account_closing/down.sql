DROP TABLE retired_usernames;
ALTER TABLE users DROP COLUMN closed_at;
