-- Usernames: a unique look-alike skeleton beside the unique lower-case login key (see
-- api/src/accounts/names.rs, which computes the same skeleton for new accounts: keep the
-- two in step). Existing accounts get theirs here; if two existing names already look
-- alike, the newer one's skeleton gets its id appended so the index can be built (both
-- keep working; no new look-alike of either can be registered).

ALTER TABLE users ADD COLUMN username_skeleton TEXT NOT NULL DEFAULT '';
UPDATE users SET username_skeleton = replace(replace(replace(replace(replace(replace(replace(lower(users.username), '0', 'o'), '1', 'l'), 'i', 'l'), '_', '-'), 'rn', 'm'), 'vv', 'w'), 'cl', 'd') || CASE WHEN EXISTS (
    SELECT 1 FROM users o
    WHERE replace(replace(replace(replace(replace(replace(replace(lower(o.username), '0', 'o'), '1', 'l'), 'i', 'l'), '_', '-'), 'rn', 'm'), 'vv', 'w'), 'cl', 'd') = replace(replace(replace(replace(replace(replace(replace(lower(users.username), '0', 'o'), '1', 'l'), 'i', 'l'), '_', '-'), 'rn', 'm'), 'vv', 'w'), 'cl', 'd') AND o.id < users.id
) THEN '#' || users.id ELSE '' END;
CREATE UNIQUE INDEX users_username_skeleton_key ON users (username_skeleton);
