DROP TABLE vacations;
