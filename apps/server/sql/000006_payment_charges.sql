-- Payments charge at a payment provider (issue 32): a payment is created `processing`, charged with
-- an idempotency key derived from the request's, and settles `succeeded` or `failed`. Rows made
-- before this migration are `succeeded` and keep their values. Nullable columns without defaults:
-- nothing is rewritten.
-- - failure_code: why a payment failed (the provider's decline code, or provider_*).
-- - charge_id: the provider's charge id, when it gave one.
-- - steps: what happened to the payment, in order ([{"step": "created", "at": …}, …]), for the dashboard.
alter table :SCHEMA.payments
  add column failure_code text,
  add column charge_id text,
  add column steps jsonb;
