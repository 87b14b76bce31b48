CREATE FUNCTION djambi_live_signal() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'game_events' THEN
        PERFORM pg_notify('djambi_live', 'g:' || g) FROM (SELECT DISTINCT game_id AS g FROM new_rows) s;
    ELSE
        PERFORM pg_notify('djambi_live', 'u:' || u) FROM (SELECT DISTINCT user_id AS u FROM new_rows) s;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER game_events_live AFTER INSERT ON game_events
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION djambi_live_signal();
CREATE TRIGGER notifications_live AFTER INSERT ON notifications
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION djambi_live_signal();
