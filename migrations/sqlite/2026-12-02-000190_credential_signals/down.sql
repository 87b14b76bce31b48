DROP TRIGGER IF EXISTS tokens_deleted_live;
DROP TRIGGER IF EXISTS tokens_revoked_live;
DROP TRIGGER IF EXISTS sessions_deleted_live;
DROP TRIGGER IF EXISTS sessions_revoked_live;
