-- No statement reads webhook_attempts by started_at alone: retention deletes attempts through their
-- delivery (webhook_attempts_by_delivery) and health reads webhook_attempts_by_endpoint. The index
-- cost one more B-tree insert for every attempt a worker records (docs/decisions.md).
drop index if exists :SCHEMA.webhook_attempts_started;
