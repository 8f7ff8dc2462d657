-- Fair claims (issue 15, D3): how many attempts each worker has in flight, per (tenant, endpoint),
-- as of its last claim. A claim sums the live rows of the other workers with its own to cap attempts
-- in flight per endpoint and per tenant across every worker process. The counts live here, one small
-- row per worker rewritten by its claims, and not in the deliveries: counting leased deliveries needs
-- an index over lease_until, which would make every claim a non-HOT update (migration 000003). A
-- crashed worker's row stops counting when its lease passes, as its deliveries' leases do.
create table :SCHEMA.webhook_worker_slots (
  worker text primary key,
  lease_until timestamptz not null,
  tenants text[] not null,
  endpoint_ids text[] not null,
  counts int[] not null
);
-- The claim reads every rate-limited endpoint's bucket to hold back the backlog of one that has no
-- token (without claiming it); most endpoints have no limit.
create index webhook_endpoints_rate_limited on :SCHEMA.webhook_endpoints (tenant, id) where rate_limit is not null;
