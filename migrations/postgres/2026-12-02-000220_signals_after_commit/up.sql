-- The write path no longer NOTIFYs inside its transactions (issue 33): PostgreSQL takes
-- one cluster-wide lock for the notification queue at the commit of every notifying
-- transaction and holds it until that commit is done, so every move committed one after
-- another. The store notes the games and users it wrote; after the commit the instance
-- tells its own hub in process and the other instances with one coalesced NOTIFY on a
-- connection of its own (api/src/store/live.rs). The credential triggers of 000190 stay.
DROP TRIGGER game_events_live ON game_events;
DROP TRIGGER notifications_live ON notifications;
DROP FUNCTION djambi_live_signal();
