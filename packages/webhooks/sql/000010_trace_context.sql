-- OpenTelemetry (issue 21, docs/observability.md).
-- webhook_events.trace_context: the W3C trace context of the request that published the event
-- ({"traceparent": "00-…", "tracestate": "…"}), null when no trace was active. Every delivery
-- attempt's span is linked to it, so an attempt hours later is still found from the publisher's trace.
-- webhook_endpoints.trace_context: whether attempts send `traceparent` / `tracestate` to the receiver.
-- Both columns are catalogue-only changes (a null column; a constant default), no table rewrite.
alter table :SCHEMA.webhook_events add column trace_context jsonb;
alter table :SCHEMA.webhook_endpoints add column trace_context boolean not null default true;
