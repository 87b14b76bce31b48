-- Open streams end when their credentials do (api/src/live, routes/sse): a login session
-- or personal access token that is revoked or deleted tells the listening instances
-- whose it was (`c:<user id>`), and only that user's streams check again. Row triggers
-- with a WHEN clause: the many updates of `last_used_at` cost no function call.
CREATE FUNCTION djambi_credential_signal() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('djambi_live', 'c:' || OLD.user_id);
    RETURN NULL;
END
$$;

CREATE TRIGGER sessions_revoked_live AFTER UPDATE OF revoked_at ON sessions FOR EACH ROW
    WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
    EXECUTE FUNCTION djambi_credential_signal();
CREATE TRIGGER sessions_deleted_live AFTER DELETE ON sessions FOR EACH ROW
    EXECUTE FUNCTION djambi_credential_signal();
CREATE TRIGGER tokens_revoked_live AFTER UPDATE OF revoked_at ON personal_access_tokens FOR EACH ROW
    WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
    EXECUTE FUNCTION djambi_credential_signal();
CREATE TRIGGER tokens_deleted_live AFTER DELETE ON personal_access_tokens FOR EACH ROW
    EXECUTE FUNCTION djambi_credential_signal();
