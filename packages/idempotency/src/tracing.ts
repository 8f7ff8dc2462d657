// OpenTelemetry for the idempotency layer (docs/observability.md), through @opentelemetry/api only:
// the outcome of each keyed request on the HTTP server span, and a span for the claim (sent with
// BEGIN) and one for the commit (the record travels with COMMIT). Without an SDK these are the API's
// no-ops. The key never reaches a span: only the first 16 hex digits of its SHA-256.
import {
  context,
  createContextKey,
  ProxyTracerProvider,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { errorCode, packageTracer } from '@surety/core';
import { hashKey } from '@surety/core/node';

const TRACER = '@surety/idempotency';
const VERSION = '0.1.0';

// Where the HTTP server instrumentation (@opentelemetry/instrumentation-http) keeps its SERVER span
// for the frameworks' instrumentations (@opentelemetry/core's getRPCMetadata). The API makes context
// keys with Symbol.for, so reading it needs no SDK package; without it the active span is used.
const RPC_METADATA = createContextKey('OpenTelemetry SDK Context Key RPC_METADATA');

/** The span that answers the request: the HTTP server span when one is known, else the active span. */
export function serverSpan(): Span | undefined {
  const active = context.active();
  const rpc = active.getValue(RPC_METADATA) as { span?: Span } | undefined;
  return rpc?.span ?? trace.getSpan(active);
}

/**
 * Sets `surety.idempotency.outcome` (`executed`, `replayed`, `in_flight`, `mismatch`, `unavailable`:
 * the engine's and the metrics' names) and the hashed key on the request's server span.
 */
export function recordOutcome(outcome: string, key: string): void {
  if (!sdkRegistered()) return;
  const span = serverSpan();
  if (span === undefined || !span.isRecording()) return;
  span.setAttributes({ 'surety.idempotency.outcome': outcome, 'surety.idempotency_key.hash': hashKey(key) });
}

const traced = packageTracer<Tracer>({ trace, ProxyTracerProvider }, TRACER, VERSION);
/** Whether an SDK has registered a tracer provider (`@surety/core`'s `packageTracer`). */
export const sdkRegistered = traced.sdkRegistered;
const tracer = traced.tracer;

function dbSpan(operation: 'claim' | 'commit'): Span {
  return tracer().startSpan(`${operation} idempotency_keys`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'db.system.name': 'postgresql',
      'db.operation.name': operation,
      'db.collection.name': 'idempotency_keys',
      'db.query.summary': `${operation} idempotency_keys`,
    },
  });
}

/** The claim's and the commit's spans of one atomic-mode execution (claim.ts). */
export class ExecutionSpans {
  #claim: Span | undefined = dbSpan('claim');
  #commit: Span | undefined;

  /** The claim's answer arrived with what it decided (`executed` when the handler runs next). */
  claimed(decision: string): void {
    const span = this.#claim;
    if (span === undefined) return;
    this.#claim = undefined;
    span.setAttribute('surety.idempotency.outcome', decision);
    span.end();
  }

  /** The handler answered: its record now travels with COMMIT. */
  committing(): void {
    this.#commit = dbSpan('commit');
  }

  /** The transaction ended: committed (no error), or rolled back / failed with `error`. */
  ended(error?: unknown): void {
    for (const span of [this.#claim, this.#commit]) {
      if (span === undefined) continue;
      if (error !== undefined) {
        span.setAttribute('error.type', errorCode(error));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    }
    this.#claim = undefined;
    this.#commit = undefined;
  }
}

/**
 * A phase of a phased operation (phases.ts): `phase <name>`, with whether it ran or was resumed
 * from its record. Ended by the caller; nothing when no SDK is registered.
 */
export function phaseSpan(name: string, kind: 'local' | 'external'): Span | undefined {
  if (!sdkRegistered()) return undefined;
  return tracer().startSpan(`phase ${name}`, {
    attributes: { 'surety.idempotency.phase': name, 'surety.idempotency.phase.kind': kind },
  });
}

/** Ends a phase's span, marking an error. */
export function endPhaseSpan(span: Span | undefined, error?: unknown): void {
  if (span === undefined) return;
  if (error !== undefined) {
    span.setAttribute('error.type', errorCode(error));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}
