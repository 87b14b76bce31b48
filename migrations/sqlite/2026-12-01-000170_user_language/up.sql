-- The account's language (en, fr, es, ...) and time zone (an IANA name); NULL: the
-- request's Accept-Language, and UTC.
ALTER TABLE users ADD COLUMN language TEXT;
ALTER TABLE users ADD COLUMN time_zone TEXT;
