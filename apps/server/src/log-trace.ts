// Trace ids in the service's logs (docs/observability.md): pino's `mixin` adds `trace_id`, `span_id`
// and `trace_flags` to every line written while a span is active (the field names of the
// OpenTelemetry log data model and of @opentelemetry/instrumentation-pino). Without an SDK there
// is never an active span: the mixin returns a fresh empty object (pino assigns the line's own fields
// into what the mixin returns, so a shared or frozen one would leak or throw).
import { context, trace } from '@opentelemetry/api';

/** The active span's ids as log fields; nothing outside a span. */
export function traceFields(): Record<string, string> {
  const sc = trace.getSpanContext(context.active());
  if (sc === undefined || !trace.isSpanContextValid(sc)) return {};
  return {
    trace_id: sc.traceId,
    span_id: sc.spanId,
    trace_flags: (sc.traceFlags & 0xff).toString(16).padStart(2, '0'),
  };
}
