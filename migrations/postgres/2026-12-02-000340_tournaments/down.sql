DROP TABLE tournament_players;
DROP TABLE tournament_events;
DROP TABLE tournaments;
