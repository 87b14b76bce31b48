-- The projection of a game's table-talk options (its `created` event's `talk`, absent:
-- the defaults), so summaries and lobby entries say them before anyone joins.
ALTER TABLE games ADD COLUMN press TEXT NOT NULL DEFAULT 'private';
ALTER TABLE games ADD COLUMN eliminated_may_write BOOLEAN NOT NULL DEFAULT TRUE;
UPDATE games SET
    press = COALESCE(e.payload::json -> 'talk' ->> 'press', 'private'),
    eliminated_may_write = COALESCE((e.payload::json -> 'talk' ->> 'eliminated_may_write')::boolean, TRUE)
FROM game_events e
WHERE e.game_id = games.id AND e.seq = 1 AND e.kind = 'created'
    AND e.payload::json -> 'talk' IS NOT NULL;
