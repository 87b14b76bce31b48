-- A stored answer is its body: the status belongs to the route that answers it.
ALTER TABLE idempotency_keys DROP COLUMN status;
