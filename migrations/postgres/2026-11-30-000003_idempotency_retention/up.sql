-- The janitor deletes idempotency keys by age.
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
