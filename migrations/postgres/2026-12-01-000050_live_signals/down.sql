DROP TRIGGER IF EXISTS notifications_live ON notifications;
DROP TRIGGER IF EXISTS game_events_live ON game_events;
DROP FUNCTION IF EXISTS djambi_live_signal();
