DROP INDEX users_username_skeleton_key;
ALTER TABLE users DROP COLUMN username_skeleton;
