ALTER TABLE messages DROP COLUMN recipient_ids;
