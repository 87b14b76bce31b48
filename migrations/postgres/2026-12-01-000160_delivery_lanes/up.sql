-- The delivery worker claims each lane (HTTP: webhooks and push; mail: mails and digests)
-- on its own, soonest due first: one partial index per lane, so a backlog in one lane is
-- never scanned by the claims of the other.
CREATE INDEX deliveries_due_http_idx ON deliveries (next_attempt_at)
    WHERE status = 'pending' AND channel IN ('webhook', 'push');
CREATE INDEX deliveries_due_mail_idx ON deliveries (next_attempt_at)
    WHERE status = 'pending' AND channel IN ('email', 'digest');
