-- The rate limits of replies by mail: what each authenticated reply is counted under
-- (its token's hash, its game and seat, its sender); NULL for replies dropped before
-- they were authenticated, which count under nothing.
ALTER TABLE inbound_mails ADD COLUMN token_hash TEXT NULL;
ALTER TABLE inbound_mails ADD COLUMN seat_key TEXT NULL;
ALTER TABLE inbound_mails ADD COLUMN sender TEXT NULL;
CREATE INDEX inbound_mails_token_idx ON inbound_mails (token_hash, received_at);
CREATE INDEX inbound_mails_seat_idx ON inbound_mails (seat_key, received_at);
CREATE INDEX inbound_mails_sender_idx ON inbound_mails (sender, received_at);
CREATE INDEX inbound_mails_received_idx ON inbound_mails (received_at);
