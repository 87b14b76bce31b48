-- When the current turn started (games with a deadline): the effective deadline, with the
-- player's vacations, is computed from it at read time (model::timing::effective_deadline).
ALTER TABLE games ADD COLUMN turn_started_at TIMESTAMP NULL;
