-- The projection of a game's rating settings (its `created` event: `rated`, `rating_range`).
ALTER TABLE games ADD COLUMN rated BOOLEAN NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN rating_range TEXT;
