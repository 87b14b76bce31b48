-- Failed-password counts shared by every instance of one database (api/src/auth/throttle.rs):
-- one row per (login name, client address) pair and per account, keyed by a keyed hash
-- (the names and addresses themselves are never stored). `known`: the hashes of the
-- addresses the owner logged in from (account rows).
CREATE TABLE login_throttle (
    key TEXT PRIMARY KEY,
    failures BIGINT NOT NULL DEFAULT 0,
    last_failure TIMESTAMP,
    known TEXT NOT NULL DEFAULT ''
);
CREATE INDEX login_throttle_last_failure_idx ON login_throttle (last_failure);
