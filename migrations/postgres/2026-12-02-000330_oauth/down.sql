DROP TABLE oauth_codes;
ALTER TABLE personal_access_tokens DROP COLUMN client_id;
