-- Delivery of notifications outside the app (webhooks, e-mail).
--
-- A notification row is the durable outbox item: the delivery worker fans each one out
-- (`fanned_out_at` IS NULL) into one `deliveries` row per channel and endpoint the
-- user's settings ask for, in one transaction, then sends them with retries.
ALTER TABLE notifications ADD COLUMN fanned_out_at TIMESTAMP NULL;
-- What existed before deliveries is not sent out.
UPDATE notifications SET fanned_out_at = created_at;
CREATE INDEX notifications_fanout_idx ON notifications (created_at) WHERE fanned_out_at IS NULL;

-- Per user: which kinds go to which channel, reminder offsets, the daily digest (JSON).
CREATE TABLE notification_settings (
    user_id     TEXT PRIMARY KEY REFERENCES users (id),
    settings    TEXT NOT NULL,
    updated_at  TIMESTAMP NOT NULL
);

-- Webhook endpoints. The secret signs deliveries (Standard Webhooks); during a rotation
-- the previous secret signs too until `previous_until`.
CREATE TABLE webhooks (
    id                    TEXT PRIMARY KEY,
    user_id               TEXT NOT NULL REFERENCES users (id),
    url                   TEXT NOT NULL,
    secret                TEXT NOT NULL,
    previous_secret       TEXT NULL,
    previous_until        TIMESTAMP NULL,
    created_at            TIMESTAMP NOT NULL,
    disabled_at           TIMESTAMP NULL,
    disabled_reason       TEXT NULL,
    consecutive_failures  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX webhooks_user_idx ON webhooks (user_id);

-- One row per notification, channel and endpoint (a webhook id, an e-mail address).
-- `id` is stable (notification, channel, endpoint).
CREATE TABLE deliveries (
    id               TEXT PRIMARY KEY,
    notification_id  TEXT NOT NULL REFERENCES notifications (id),
    user_id          TEXT NOT NULL,
    channel          TEXT NOT NULL,            -- webhook | email
    endpoint         TEXT NOT NULL,
    status           TEXT NOT NULL,            -- pending | delivered | dead
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  TIMESTAMP NOT NULL,
    lease_until      TIMESTAMP NULL,
    last_error       TEXT NULL,
    last_status      INTEGER NULL,
    created_at       TIMESTAMP NOT NULL,
    delivered_at     TIMESTAMP NULL
);
CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_endpoint_idx ON deliveries (endpoint, created_at);
