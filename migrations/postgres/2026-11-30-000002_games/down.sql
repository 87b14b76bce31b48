DROP TABLE idempotency_keys;
DROP TABLE game_players;
DROP TABLE games;
DROP TABLE game_events;
