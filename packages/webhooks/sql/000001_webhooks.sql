-- Endpoints: where a tenant's events go. Secrets are kept so that every delivery can be signed;
-- during a rotation the old secret stays listed (with its expiry) and deliveries carry both signatures.
create table :SCHEMA.webhook_endpoints (
  tenant text not null,
  id text not null,
  url text not null,
  description text not null default '',
  event_types text[] not null,
  format text not null default 'surety' check (format in ('surety', 'standard')),
  secrets jsonb not null,
  status text not null default 'enabled' check (status in ('enabled', 'disabled')),
  disabled_reason text,
  disabled_at timestamptz,
  retry_schedule int[],
  rate_limit int check (rate_limit is null or rate_limit > 0),
  rate_tokens double precision,
  rate_at timestamptz,
  ordered boolean not null default false,
  version int not null default 1,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  last_success_at timestamptz,
  last_failure_at timestamptz,
  failing_since timestamptz,
  primary key (tenant, id)
);

-- Increases with every event: per resource it follows commit order, because the business write
-- that publishes holds the resource's row lock until COMMIT. Gaps are allowed.
create sequence :SCHEMA.webhook_event_sequence;

-- The outbox. `data` is the payload's JSON text exactly as published; the envelope is assembled
-- from these columns the same way on every attempt, so every attempt sends the same bytes.
create table :SCHEMA.webhook_events (
  tenant text not null,
  id text not null,
  type text not null,
  api_version text not null,
  resource text,
  sequence bigint not null,
  data text not null,
  created_at timestamptz not null,
  primary key (tenant, id)
);
create index webhook_events_by_created on :SCHEMA.webhook_events (tenant, created_at desc, id desc);
create index webhook_events_created on :SCHEMA.webhook_events (created_at);

-- One row per (event, endpoint). A claimed delivery stays 'pending' with next_attempt_at moved
-- one lease ahead and locked_by set: a worker that dies simply lets the lease run out, and the
-- delivery is due again. Completion checks locked_by (fencing).
create table :SCHEMA.webhook_deliveries (
  id bigint generated always as identity primary key,
  tenant text not null,
  endpoint_id text not null,
  event_id text not null,
  status text not null check (status in ('pending', 'delivered', 'failed')),
  ordered boolean not null default false,
  attempts int not null default 0,
  next_attempt_at timestamptz not null,
  locked_by text,
  created_at timestamptz not null,
  completed_at timestamptz,
  last_status int,
  last_error text
);
-- The claim scans this partial index in due order; it only ever holds pending rows.
create index webhook_deliveries_due on :SCHEMA.webhook_deliveries (next_attempt_at) where status = 'pending';
-- Ordered endpoints: the head of an endpoint's queue.
create index webhook_deliveries_endpoint_pending on :SCHEMA.webhook_deliveries (tenant, endpoint_id, id)
  where status = 'pending';
create index webhook_deliveries_by_endpoint on :SCHEMA.webhook_deliveries (tenant, endpoint_id, id desc);
create index webhook_deliveries_by_event on :SCHEMA.webhook_deliveries (tenant, event_id);

create table :SCHEMA.webhook_attempts (
  id bigint generated always as identity primary key,
  delivery_id bigint not null,
  tenant text not null,
  endpoint_id text not null,
  attempt int not null,
  started_at timestamptz not null,
  duration_ms int not null,
  status int,
  response_excerpt text,
  error_code text,
  error_message text
);
create index webhook_attempts_by_delivery on :SCHEMA.webhook_attempts (delivery_id, id);
create index webhook_attempts_started on :SCHEMA.webhook_attempts (started_at);
-- Endpoint health (success rate over a window) for the management API and the dashboard.
create index webhook_attempts_by_endpoint on :SCHEMA.webhook_attempts (tenant, endpoint_id, started_at desc);
