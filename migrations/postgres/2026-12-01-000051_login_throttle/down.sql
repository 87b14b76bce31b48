DROP TABLE IF EXISTS login_throttle;
