DROP TABLE inbound_mails;
DROP TABLE mail_move_tokens;
