-- Web Push subscriptions (RFC 8030): one row per browser (device) a user enabled push on.
-- `endpoint` is the push service's URL for that browser; `p256dh` (the browser's P-256
-- public key) and `auth` (its 16-byte secret), both base64url, encrypt the payloads
-- (RFC 8291). An endpoint belongs to one account: the last one to subscribe it.
CREATE TABLE push_subscriptions (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id),
    endpoint    TEXT NOT NULL UNIQUE,
    p256dh      TEXT NOT NULL,
    auth        TEXT NOT NULL,
    created_at  TIMESTAMP NOT NULL
);
CREATE INDEX push_subscriptions_user_idx ON push_subscriptions (user_id);
