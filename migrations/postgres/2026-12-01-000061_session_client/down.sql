ALTER TABLE sessions DROP COLUMN user_agent;
ALTER TABLE sessions DROP COLUMN client_addr;
