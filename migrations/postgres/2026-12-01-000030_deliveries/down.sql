DROP TABLE deliveries;
DROP TABLE webhooks;
DROP TABLE notification_settings;
DROP INDEX notifications_fanout_idx;
ALTER TABLE notifications DROP COLUMN fanned_out_at;
