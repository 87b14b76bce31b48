-- A private message is addressed to the accounts that held its recipient seats when it
-- was sent (issue 32): their ids, space separated; empty for a message to the table.
-- Messages sent before this migration get the seats' holders of now (the best known).
ALTER TABLE messages ADD COLUMN recipient_ids TEXT NOT NULL DEFAULT '';
UPDATE messages SET recipient_ids = COALESCE((
    SELECT group_concat(gp.user_id, ' ')
    FROM game_players gp
    WHERE gp.game_id = messages.game_id AND instr(messages.recipients, gp.seat) > 0
), '')
WHERE recipients <> '';
