-- What a game is for: `play` (played on the server) or `study` (imported from a game
-- record: no seats, the record's actions). Written by the projection like every column.
ALTER TABLE games ADD COLUMN kind TEXT NOT NULL DEFAULT 'play';
