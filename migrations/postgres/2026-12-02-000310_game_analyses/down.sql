DROP TABLE game_analysis_moves;
DROP TABLE game_analyses;
