-- Payload filters per endpoint (issue 37, docs/webhooks.md "Payload filters"): `filter` is the
-- filter as the tenant wrote it (returned with the endpoint), `filter_path` its SQL/JSON path
-- predicate (src/filter/jsonpath.ts), which the publishing statement evaluates per endpoint with
-- jsonb_path_match. Both null: no filter, every event of the subscribed types. Nullable columns
-- with no default: a catalogue-only change, no table rewrite.
alter table :SCHEMA.webhook_endpoints add column filter jsonb, add column filter_path jsonpath;
