-- Unsubscribe links carry the account's `unsubscribe_version` under their signature; a
-- change of password or address bumps it, so the links of older mails stop working.
ALTER TABLE users ADD COLUMN unsubscribe_version BIGINT NOT NULL DEFAULT 0;
