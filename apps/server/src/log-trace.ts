// Trace ids in the service's logs (docs/observability.md): pino's `mixin` adds `trace_id`, `span_id`
// and `trace_flags` to every line written while a span is active (the field names of the
// OpenTelemetry log data model and of @opentelemetry/instrumentation-pino). Without an SDK there
// is never an active span: the mixin returns one shared empty object.
import { context, trace } from '@opentelemetry/api';

const NONE = Object.freeze({});

/** The active span's ids as log fields; nothing outside a span. */
export function traceFields(): Record<string, string> {
  const sc = trace.getSpanContext(context.active());
  if (sc === undefined || !trace.isSpanContextValid(sc)) return NONE;
  return {
    trace_id: sc.traceId,
    span_id: sc.spanId,
    trace_flags: (sc.traceFlags & 0xff).toString(16).padStart(2, '0'),
  };
}
