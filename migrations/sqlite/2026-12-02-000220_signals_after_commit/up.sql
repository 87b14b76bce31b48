-- The store notes the games and users a write changed itself (api/src/store/live.rs), on
-- both databases: the triggers of 000050 are gone. The credential triggers of 000190 stay.
DROP TRIGGER game_events_live;
DROP TRIGGER notifications_live;
