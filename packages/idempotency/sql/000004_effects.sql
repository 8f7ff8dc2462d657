-- The effects outbox (issue 32, docs/side-effects.md): an effect (an email, a ledger export, a
-- capture) is enqueued in the business transaction and run later by a worker with a key derived
-- from `key` (deriveKey(key, name)); its result is recorded with the follow-up write in one
-- transaction. One row per effect, kept after it ends (succeeded / failed) as its record.
-- - (tenant, name, key) unique: enqueueing the same effect of the same operation twice is one effect.
-- - state: pending → running (claimed, `owner` set, run_at = when its lease lapses) → pending again
--   (a retry, run_at = the backoff's time) or succeeded / failed. A running row whose lease lapsed
--   (its worker died) is due again: the next claim runs it with the same derived key.
-- - deadline_at: no attempt starts after it; the effect then ends failed (deadline_exceeded).
create table :SCHEMA.idempotency_effects (
  id bigint generated always as identity primary key,
  tenant text not null,
  name text not null,
  key text not null,
  payload jsonb not null,
  state text not null default 'pending' check (state in ('pending', 'running', 'succeeded', 'failed')),
  attempts int not null default 0,
  run_at timestamptz not null,
  deadline_at timestamptz not null,
  owner uuid,
  result jsonb,
  last_error text,
  created_at timestamptz not null,
  finished_at timestamptz,
  unique (tenant, name, key)
);

-- The claim's scan: due effects, oldest first. Partial: finished rows (the great majority, kept as
-- the record) are not in it, so the index stays the size of the backlog.
create index idempotency_effects_due on :SCHEMA.idempotency_effects (run_at) where state in ('pending', 'running');
