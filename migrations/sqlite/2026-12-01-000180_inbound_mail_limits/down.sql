DROP INDEX inbound_mails_received_idx;
DROP INDEX inbound_mails_sender_idx;
DROP INDEX inbound_mails_seat_idx;
DROP INDEX inbound_mails_token_idx;
ALTER TABLE inbound_mails DROP COLUMN sender;
ALTER TABLE inbound_mails DROP COLUMN seat_key;
ALTER TABLE inbound_mails DROP COLUMN token_hash;
