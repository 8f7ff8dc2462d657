// OpenTelemetry for the webhook engine (docs/observability.md), through @opentelemetry/api only.
// publish() stores the publishing request's W3C trace context with the event (migration 000010);
// each delivery attempt is a CLIENT span of its own trace, LINKED to that context, so an attempt
// made hours later is still found from the publisher's trace; the attempt's `traceparent` goes to
// the receiver unless the endpoint's `traceContext` is false. Nothing secret reaches a span: the URL
// without credentials, query or fragment; no body; no request header; response headers only from
// an allow-list.
import {
  type Attributes,
  context,
  type Link,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { packageTracer, TRACED_RESPONSE_HEADERS, traceableUrl } from '@surety/core';
import type { PostFn, Sent } from './delivery/attempt.js';
import type { Classification } from './delivery/classify.js';
import type { Claimed } from './sql/claim.js';

const TRACER = '@surety/webhooks';
const VERSION = '0.1.0';

/** A W3C trace context as stored with an event. */
export interface StoredTraceContext {
  traceparent: string;
  tracestate?: string;
}

const traced = packageTracer<Tracer>({ trace, ProxyTracerProvider }, TRACER, VERSION);
/** Whether an SDK has registered a tracer provider (`@surety/core`'s `packageTracer`). */
export const sdkRegistered = traced.sdkRegistered;
const tracer = traced.tracer;

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The active span's context as JSON for `webhook_events.trace_context`; null without a valid one. */
export function publishingContext(): string | null {
  const sc = trace.getSpanContext(context.active());
  if (sc === undefined || !trace.isSpanContextValid(sc)) return null;
  const flags = (sc.traceFlags & 0xff).toString(16).padStart(2, '0');
  const stored: StoredTraceContext = { traceparent: `00-${sc.traceId}-${sc.spanId}-${flags}` };
  const state = sc.traceState?.serialize();
  if (state) stored.tracestate = state;
  return JSON.stringify(stored);
}

/** The stored context as a span context to link to; undefined when absent or malformed. */
export function storedSpanContext(stored: unknown): SpanContext | undefined {
  let value = stored;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  const traceparent = (value as { traceparent?: unknown } | null)?.traceparent;
  if (typeof traceparent !== 'string') return undefined;
  const m = TRACEPARENT.exec(traceparent);
  if (!m) return undefined;
  const sc: SpanContext = {
    traceId: m[1]!,
    spanId: m[2]!,
    traceFlags: Number.parseInt(m[3]!, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  return trace.isSpanContextValid(sc) ? sc : undefined;
}

/** One delivery attempt's span (delivery/attempt-run.ts): started before the POST, ended once classified. */
export class AttemptSpan {
  readonly #span: Span;
  #headers: Record<string, string | string[] | undefined> | undefined;

  constructor(row: Claimed) {
    const linked = storedSpanContext(row.trace_context);
    const links: Link[] = linked ? [{ context: linked, attributes: { 'surety.link': 'published_by' } }] : [];
    // A root of its own: the worker's loop is no request's child.
    this.#span = tracer().startSpan('POST', { kind: SpanKind.CLIENT, links, root: true }, ROOT_CONTEXT);
    if (!this.#span.isRecording()) return;
    const a: Attributes = {
      'http.request.method': 'POST',
      'surety.webhook.delivery_id': row.id,
      'surety.webhook.event_id': row.event_id,
      'surety.webhook.endpoint_id': row.endpoint_id,
      'surety.webhook.attempt': row.attempts,
    };
    if (row.type !== null) a['surety.webhook.event_type'] = row.type;
    if (row.attempts > 1) a['http.request.resend_count'] = row.attempts - 1;
    const url = row.url === null ? undefined : traceableUrl(row.url);
    if (url !== undefined) {
      a['url.full'] = url.full;
      a['server.address'] = url.host;
      a['server.port'] = url.port;
    }
    this.#span.setAttributes(a);
  }

  /** `post`, sending the attempt's `traceparent` (and `tracestate`) when the endpoint wants it. */
  post(post: PostFn, send: boolean): PostFn {
    const span = this.#span;
    const sc = span.spanContext();
    if (!span.isRecording() && !trace.isSpanContextValid(sc)) return post; // no SDK: nothing to add
    const ctx = trace.setSpan(ROOT_CONTEXT, span);
    const propagate = send && trace.isSpanContextValid(sc);
    const traceparent = `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
    const state = sc.traceState?.serialize();
    return async (url, request) => {
      let sent = request;
      if (propagate) {
        const headers: Record<string, string> = { ...request.headers, traceparent };
        if (state) headers.tracestate = state;
        sent = { ...request, headers };
      }
      const res = await context.with(ctx, () => post(url, sent));
      if (span.isRecording()) this.#headers = res.headers;
      return res;
    };
  }

  /** Ends the span with the receiver's answer and what the worker made of it. */
  end(sent: Sent, c: Classification): void {
    const span = this.#span;
    if (span.isRecording()) {
      const a: Attributes = { 'surety.webhook.outcome': c.kind };
      if (c.status !== null) a['http.response.status_code'] = c.status;
      if (c.errorCode !== null) a['error.type'] = c.errorCode;
      else if (c.status !== null && c.status >= 400) a['error.type'] = String(c.status);
      if (c.kind === 'retry') a['surety.webhook.next_attempt_at'] = new Date(c.nextAtMs).toISOString();
      if (sent.result.kind === 'not_sent') a['surety.webhook.not_sent'] = sent.result.code;
      for (const name of TRACED_RESPONSE_HEADERS) {
        const value = this.#headers?.[name];
        if (value !== undefined) a[`http.response.header.${name}`] = Array.isArray(value) ? value : [value];
      }
      span.setAttributes(a);
      if (c.kind !== 'delivered') span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  }
}
