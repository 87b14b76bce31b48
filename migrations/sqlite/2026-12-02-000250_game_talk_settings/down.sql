ALTER TABLE games DROP COLUMN eliminated_may_write;
ALTER TABLE games DROP COLUMN press;
