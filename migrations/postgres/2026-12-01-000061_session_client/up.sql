-- What the owner sees of a login session: the client address and user agent it was
-- started from (`GET /v1/me/sessions`).
ALTER TABLE sessions ADD COLUMN client_addr TEXT NULL;
ALTER TABLE sessions ADD COLUMN user_agent TEXT NULL;
