// OpenTelemetry spans for the client (docs/observability.md): one INTERNAL span per logical call, one
// CLIENT span per attempt under it (the OpenTelemetry HTTP client conventions: a span per physical
// request, `http.request.resend_count` on the retries), `traceparent` injected into every attempt.
// Without an SDK every call here is the API's no-op (measured in bench/tracing); attributes are only
// computed for a span that records. Nothing secret goes in: the URL without credentials, query or
// fragment, the idempotency key hashed, no bodies, response headers only from an allow-list.
import {
  type Attributes,
  type Context,
  context,
  ProxyTracerProvider,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { packageTracer, TRACED_RESPONSE_HEADERS, traceableUrl } from '@surety/core';
import { hashKey } from '@surety/core/node';
import type { GiveUpEvent } from './events.js';
import type { HeaderPairs } from './header-pairs.js';

const TRACER = '@surety/fetch';
const VERSION = '0.1.0';

const traced = packageTracer<Tracer>({ trace, ProxyTracerProvider }, TRACER, VERSION);
/** Whether an SDK has registered a tracer provider (`@surety/core`'s `packageTracer`). */
export const sdkRegistered = traced.sdkRegistered;
const tracer = traced.tracer;

const pairSetter = {
  set(carrier: HeaderPairs, key: string, value: string) {
    carrier.push([key, value]);
  },
};

/** What the loop tells about the retry it decided on, carried by the next attempt's span. */
export interface RetryNote {
  /** The failed attempt's status, or its error's code. */
  reason: string;
  delayMs: number;
  retryAfterMs: number | undefined;
  /** Retry-budget tokens left after this retry's withdrawal; undefined without a budget. */
  budgetTokens: number | undefined;
}

/** The spans of one call: created by `createFetch`'s loop, one method per step. */
export class CallTrace {
  readonly #span: Span;
  /** Undefined when nothing can come of this call's spans (no SDK, no trace to continue): attempts go out untouched. */
  readonly #ctx: Context | undefined;
  readonly #verb: string;
  readonly #url: ReturnType<typeof traceableUrl>;
  #attempt: Span | undefined;
  #retry: RetryNote | undefined;
  #attempts = 0;

  constructor(verb: string, url: string, key: string | undefined) {
    const parent = context.active();
    this.#verb = verb;
    this.#span = tracer().startSpan(verb, { kind: SpanKind.INTERNAL }, parent);
    const live = this.#span.isRecording() || trace.isSpanContextValid(this.#span.spanContext());
    this.#ctx = live ? trace.setSpan(parent, this.#span) : undefined;
    this.#url = this.#span.isRecording() ? traceableUrl(url) : undefined;
    if (this.#url !== undefined) {
      const a: Attributes = { 'http.request.method': verb, 'url.full': this.#url.full };
      if (key !== undefined) a['surety.idempotency_key.hash'] = hashKey(key);
      this.#span.setAttributes(a);
    }
  }

  /** Starts attempt `n`'s span and adds its `traceparent` (and `tracestate`) to `headers`. */
  attempt<T>(n: number, headers: HeaderPairs, breakerState: string | undefined, send: () => T): T {
    this.#attempts = n;
    if (this.#ctx === undefined) return send();
    const span = tracer().startSpan(this.#verb, { kind: SpanKind.CLIENT }, this.#ctx);
    this.#attempt = span;
    const ctx = trace.setSpan(this.#ctx, span);
    if (span.isRecording()) {
      const a: Attributes = { 'http.request.method': this.#verb, 'surety.fetch.attempt': n };
      if (this.#url !== undefined) {
        a['url.full'] = this.#url.full;
        a['server.address'] = this.#url.host;
        a['server.port'] = this.#url.port;
      }
      if (n > 1) a['http.request.resend_count'] = n - 1;
      if (breakerState !== undefined) a['surety.fetch.breaker.state'] = breakerState;
      const r = this.#retry;
      if (r !== undefined) {
        a['surety.fetch.retry.reason'] = r.reason;
        a['surety.fetch.retry.backoff_ms'] = Math.round(r.delayMs * 1000) / 1000;
        if (r.retryAfterMs !== undefined) a['surety.fetch.retry.retry_after_ms'] = r.retryAfterMs;
        if (r.budgetTokens !== undefined) {
          a['surety.fetch.retry.budget'] = 'allowed';
          a['surety.fetch.retry.budget_tokens'] = Math.floor(r.budgetTokens * 1000) / 1000;
        }
      }
      span.setAttributes(a);
    }
    propagation.inject(ctx, headers, pairSetter);
    return context.with(ctx, send);
  }

  /** Ends the current attempt's span with its answer: a response or the error thrown. */
  attemptEnded(response: Response | undefined, error: unknown): void {
    const span = this.#attempt;
    if (span === undefined) return;
    this.#attempt = undefined;
    if (span.isRecording()) {
      if (response !== undefined) {
        span.setAttribute('http.response.status_code', response.status);
        for (const name of TRACED_RESPONSE_HEADERS) {
          const value = response.headers.get(name);
          if (value !== null) span.setAttribute(`http.response.header.${name}`, [value]);
        }
        if (response.status >= 400) {
          span.setAttribute('error.type', String(response.status));
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
      } else {
        span.setAttribute('error.type', errorType(error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorType(error) });
      }
    }
    span.end();
  }

  /** The retry the loop decided on; recorded on the next attempt's span. */
  retrying(note: RetryNote): void {
    this.#retry = note;
  }

  /** Why a retryable failure was returned as it is (the budget's refusal among them). */
  gaveUp(reason: string): void {
    if (!this.#span.isRecording()) return;
    this.#span.setAttribute('surety.fetch.give_up.reason', reason);
    if (reason === 'budget') this.#span.setAttribute('surety.fetch.retry.budget', 'denied');
  }

  /** `onGiveUp` as the loop calls it: told to the span first when the span records. */
  giveUpHook(
    onGiveUp: ((event: GiveUpEvent) => void) | undefined,
  ): ((event: GiveUpEvent) => void) | undefined {
    if (!this.#span.isRecording()) return onGiveUp;
    return (event) => {
      this.gaveUp(event.reason);
      onGiveUp?.(event);
    };
  }

  /** Ends the call's span with the response returned or the error thrown. */
  end(response: Response | undefined, error?: unknown): void {
    this.attemptEnded(response, error);
    const span = this.#span;
    if (span.isRecording()) {
      span.setAttribute('surety.fetch.attempts', this.#attempts);
      if (response !== undefined) {
        span.setAttribute('http.response.status_code', response.status);
        if (response.status >= 400) span.setAttribute('error.type', String(response.status));
      } else {
        span.setAttribute('error.type', errorType(error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorType(error) });
      }
    }
    span.end();
  }
}

/** A low-cardinality name for an error: its code (`ECONNRESET`, `SURETY_…`), else its class. */
export function errorType(error: unknown): string {
  const e = error as { code?: unknown; cause?: { code?: unknown }; name?: unknown } | null;
  if (typeof e?.code === 'string') return e.code;
  if (typeof e?.cause?.code === 'string') return e.cause.code;
  return typeof e?.name === 'string' ? e.name : '_OTHER';
}
