-- What kind of work a due game holds, claimed in this order (then by due time): 0 a
-- deadline, 1 a computer player's turn in a game with people, 2 a game of bots alone.
ALTER TABLE games ADD COLUMN due_priority INTEGER NOT NULL DEFAULT 0;
-- Games with bots: recomputed at their next write; until then a computer player's turn.
UPDATE games SET due_priority = 1 WHERE bots IS NOT NULL AND due_at IS NOT NULL;
-- The quotas count what an account created (open games, games a day, bot-only games).
CREATE INDEX games_created_by_idx ON games (created_by, created_at);
-- The cap on games of computer players alone counts them (per account and in all).
CREATE INDEX games_bots_only_idx ON games (created_by) WHERE due_priority = 2 AND status = 'active';
