-- Closing an account: the row stays (games keep their logs and seats, shown as a deleted
-- player) with its personal data erased; `closed_at` says when.
ALTER TABLE users ADD COLUMN closed_at TIMESTAMP NULL;

-- The names of closed accounts cannot be registered again until `held_until`: only the
-- SHA-256 (hex) of the name's look-alike skeleton is kept, and the janitor removes the row
-- after that.
CREATE TABLE retired_usernames (
    skeleton_hash TEXT PRIMARY KEY,
    held_until    TIMESTAMP NOT NULL
);
