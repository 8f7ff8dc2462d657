-- Phased (multi-step) keyed operations (issue 32): a lease-mode key that runs a named operation as
-- a sequence of phases, each committed with the key's recovery point, so a retry (or the completer)
-- resumes where the last committed phase left off. Nullable columns without defaults: adding them
-- rewrites nothing, so no long lock on a loaded table.
-- - operation: the registered operation's name, so the completer knows what to run.
-- - input: the request's input as the operation reads it (JSON), for the completer.
-- - recovery_point: the last committed phase's name.
-- - phase_state: each committed phase's result, by name ({"created": …, "charge": …}).
alter table :SCHEMA.idempotency_keys
  add column operation text,
  add column input jsonb,
  add column recovery_point text,
  add column phase_state jsonb;

-- The completer's scan: operations in progress whose lease has lapsed, oldest lapse first.
create index idempotency_keys_stuck on :SCHEMA.idempotency_keys (lease_expires_at)
  where state = 'in_progress' and operation is not null;
