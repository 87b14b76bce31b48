-- Stream fan-out (api/src/live): the server registers `djambi_signal(topic)` on each of
-- its connections; it notes the game or user, and the store hands the notes to the
-- instance's hub once the write has committed (the in-process signal).
CREATE TRIGGER game_events_live AFTER INSERT ON game_events
BEGIN
    SELECT djambi_signal('g:' || NEW.game_id);
END;
CREATE TRIGGER notifications_live AFTER INSERT ON notifications
BEGIN
    SELECT djambi_signal('u:' || NEW.user_id);
END;
