-- The janitor prunes what outlived its retention in bounded batches, each found by an
-- index on the time it is pruned by.
CREATE INDEX notifications_read_at_idx ON notifications (read_at) WHERE read_at IS NOT NULL;
CREATE INDEX notifications_created_at_idx ON notifications (created_at);
CREATE INDEX deliveries_notification_idx ON deliveries (notification_id);
CREATE INDEX deliveries_finished_idx ON deliveries (created_at) WHERE status <> 'pending';
CREATE INDEX sessions_revoked_at_idx ON sessions (revoked_at) WHERE revoked_at IS NOT NULL;
CREATE INDEX sessions_last_used_at_idx ON sessions (last_used_at);
CREATE INDEX refresh_tokens_expires_at_idx ON refresh_tokens (expires_at);
CREATE INDEX refresh_tokens_used_at_idx ON refresh_tokens (used_at) WHERE used_at IS NOT NULL;
CREATE INDEX account_tokens_expires_at_idx ON account_tokens (expires_at);
CREATE INDEX mail_move_tokens_expires_at_idx ON mail_move_tokens (expires_at);
