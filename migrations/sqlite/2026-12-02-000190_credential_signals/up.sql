-- Open streams end when their credentials do (see the PostgreSQL migration): a revoked
-- or deleted session or personal access token notes `c:<user id>` for the hub.
CREATE TRIGGER sessions_revoked_live AFTER UPDATE OF revoked_at ON sessions
    WHEN OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL
BEGIN
    SELECT djambi_signal('c:' || NEW.user_id);
END;
CREATE TRIGGER sessions_deleted_live AFTER DELETE ON sessions
BEGIN
    SELECT djambi_signal('c:' || OLD.user_id);
END;
CREATE TRIGGER tokens_revoked_live AFTER UPDATE OF revoked_at ON personal_access_tokens
    WHEN OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL
BEGIN
    SELECT djambi_signal('c:' || NEW.user_id);
END;
CREATE TRIGGER tokens_deleted_live AFTER DELETE ON personal_access_tokens
BEGIN
    SELECT djambi_signal('c:' || OLD.user_id);
END;
