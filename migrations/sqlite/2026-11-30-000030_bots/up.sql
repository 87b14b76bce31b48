-- Computer players: the seats bots hold and their levels, e.g. `B3,G5` (NULL: none).
-- Written by the projection like every column; the log's `bot_seated` events are the
-- truth. A bot to move makes the game due at once (`due_at`): the due-work worker plays
-- its move.
ALTER TABLE games ADD COLUMN bots TEXT NULL;
