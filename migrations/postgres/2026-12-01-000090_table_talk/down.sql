DROP TABLE message_reports;
DROP TABLE mutes;
DROP TABLE messages;
