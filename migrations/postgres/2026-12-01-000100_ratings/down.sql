DROP TABLE rating_changes;
DROP TABLE player_ratings;
