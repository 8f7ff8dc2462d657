-- The circuit breaker of each endpoint (docs/webhooks.md, "Circuit breaker"), kept in its row and
-- written by the worker's health statement only:
--   circuit_failures    consecutive failed attempts (reset by a success)
--   circuit_opened_at   when the breaker opened; null while closed
--   circuit_probe_at    when the single probe attempt is due
--   circuit_probes      failed probes since it opened (the next probe waits 2^n times longer)
--   circuit_hold_until  when the deliveries held behind the probe are due (after the probe's outcome)
alter table :SCHEMA.webhook_endpoints
  add column circuit_failures int not null default 0,
  add column circuit_opened_at timestamptz,
  add column circuit_probe_at timestamptz,
  add column circuit_probes int not null default 0,
  add column circuit_hold_until timestamptz;
-- /metrics counts open breakers at every scrape; open breakers are few.
create index webhook_endpoints_circuit_open on :SCHEMA.webhook_endpoints (circuit_probe_at)
  where circuit_opened_at is not null;
