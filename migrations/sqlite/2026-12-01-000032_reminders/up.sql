-- When the reminders of a game's current turn are next due (see games::reminders).
-- `version` is the turn (the game's version) the row was computed for.
CREATE TABLE reminder_schedule (
    game_id      TEXT PRIMARY KEY REFERENCES games (id),
    version      BIGINT NOT NULL,
    remind_at    TIMESTAMP NULL,
    lease_until  TIMESTAMP NULL
);
CREATE INDEX reminder_schedule_due_idx ON reminder_schedule (remind_at);
