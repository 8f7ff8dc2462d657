-- Adaptive throttling and operational events (issue 37, docs/webhooks.md "Adaptive throttling" and
-- "Operational events"). Written by the worker only, kept in the endpoint's row like the breaker:
--   throttle_at         the last decrease (a 429/503 answer, or latency climbing); null: never throttled
--   throttle_until      the throttle ends here unless renewed (throttle_at + the recovery window)
--   throttle_rate       the adaptive rate (deliveries/s) set at throttle_at; null: the cap only
--   throttle_step       its additive increase, deliveries/s per second since throttle_at
--   throttle_cap        the in-flight cap set at throttle_at; it grows by one slot a second
--   throttle_max_cap    the worker's own cap when it was set (the adaptive cap never exceeds it)
--   throttle_pause_until the receiver's Retry-After for the whole endpoint (bounded)
--   throttle_decreases  decreases so far (the API and metrics show it)
-- The current rate and cap are functions of the clock (rate + step * seconds, cap + seconds), so
-- recovering writes nothing. The token bucket (rate_tokens, rate_at: 000006) is the one the
-- endpoint's own `rate_limit` uses; the claim spends from it at the lower of the two rates.
--   backlog_alerted     the backlog crossed the operational threshold and has not fallen below its
--                       low-water mark since (edge-triggered `endpoint.backlog_exceeded`)
--   circuit_notified    an `endpoint.circuit_opened` was published for the open breaker (its
--                       `endpoint.circuit_closed` then follows; rate-limited opens publish neither)
--   circuit_notified_at when the last `endpoint.circuit_opened` was published
--   secret_notified     the expiries `endpoint.secret_expiring` was sent for (those still ahead)
-- Nullable columns or constant defaults: catalogue-only changes, no table rewrite.
alter table :SCHEMA.webhook_endpoints
  add column throttle_at timestamptz,
  add column throttle_until timestamptz,
  add column throttle_rate float8,
  add column throttle_step float8,
  add column throttle_cap int,
  add column throttle_max_cap int,
  add column throttle_pause_until timestamptz,
  add column throttle_decreases int not null default 0,
  add column backlog_alerted bool not null default false,
  add column circuit_notified bool not null default false,
  add column circuit_notified_at timestamptz,
  add column secret_notified timestamptz[];
-- The claim reads the throttled endpoints at every claim (as it reads the rate-limited ones through
-- webhook_endpoints_rate_limited): few rows, through this index.
create index webhook_endpoints_throttled on :SCHEMA.webhook_endpoints (tenant, id) where throttle_until is not null;
