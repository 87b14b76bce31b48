DROP TABLE reminder_schedule;
