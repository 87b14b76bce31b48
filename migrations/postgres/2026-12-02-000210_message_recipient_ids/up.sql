-- A private message is addressed to the accounts that held its recipient seats when it
-- was sent (issue 32): their ids, space separated; empty for a message to the table.
-- Messages sent before this migration get the seats' holders of now (the best known).
ALTER TABLE messages ADD COLUMN recipient_ids TEXT NOT NULL DEFAULT '';
UPDATE messages m SET recipient_ids = COALESCE((
    SELECT string_agg(gp.user_id, ' ' ORDER BY gp.seat)
    FROM game_players gp
    WHERE gp.game_id = m.game_id AND strpos(m.recipients, gp.seat) > 0
), '')
WHERE m.recipients <> '';
