CREATE TRIGGER game_events_live AFTER INSERT ON game_events
BEGIN
    SELECT djambi_signal('g:' || NEW.game_id);
END;
CREATE TRIGGER notifications_live AFTER INSERT ON notifications
BEGIN
    SELECT djambi_signal('u:' || NEW.user_id);
END;
