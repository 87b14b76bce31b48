-- The projection of a game's table-talk options (its `created` event's `talk`, absent:
-- the defaults), so summaries and lobby entries say them before anyone joins.
ALTER TABLE games ADD COLUMN press TEXT NOT NULL DEFAULT 'private';
ALTER TABLE games ADD COLUMN eliminated_may_write BOOLEAN NOT NULL DEFAULT 1;
UPDATE games SET
    press = COALESCE((SELECT json_extract(e.payload, '$.talk.press') FROM game_events e
        WHERE e.game_id = games.id AND e.seq = 1 AND e.kind = 'created'), 'private'),
    eliminated_may_write = COALESCE((SELECT json_extract(e.payload, '$.talk.eliminated_may_write')
        FROM game_events e WHERE e.game_id = games.id AND e.seq = 1 AND e.kind = 'created'), 1);
