-- One row per (tenant, key). In atomic mode the row is written once, completed, in the same
-- transaction as the business write. In lease mode it is committed in_progress first, with an
-- owner token and a lease, and completed (or deleted) later by that owner only.
create table :SCHEMA.idempotency_keys (
  tenant text not null,
  key text not null,
  -- 64-bit hash of (tenant, key): the advisory-lock id, and what the claim looks rows up by, so
  -- the claim can travel with BEGIN in one round trip carrying only a number the engine computed.
  lock_id bigint not null,
  fingerprint text not null,
  state text not null check (state in ('in_progress', 'completed')),
  owner uuid,
  lease_expires_at timestamptz,
  status int,
  headers jsonb,
  body text,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  -- One index serves the claim's lookup (by lock_id) and the uniqueness of (tenant, key), which the
  -- lock id is a function of: one index fewer to write per request than a separate lock_id index.
  primary key (lock_id, tenant, key)
);

-- The purge walks expired rows in batches through this index.
create index idempotency_keys_expires_at on :SCHEMA.idempotency_keys (expires_at);
