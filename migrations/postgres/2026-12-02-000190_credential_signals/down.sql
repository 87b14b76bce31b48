DROP TRIGGER IF EXISTS tokens_deleted_live ON personal_access_tokens;
DROP TRIGGER IF EXISTS tokens_revoked_live ON personal_access_tokens;
DROP TRIGGER IF EXISTS sessions_deleted_live ON sessions;
DROP TRIGGER IF EXISTS sessions_revoked_live ON sessions;
DROP FUNCTION IF EXISTS djambi_credential_signal();
