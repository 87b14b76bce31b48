DROP TRIGGER IF EXISTS notifications_live;
DROP TRIGGER IF EXISTS game_events_live;
