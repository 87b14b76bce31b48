ALTER TABLE users DROP COLUMN unsubscribe_version;
