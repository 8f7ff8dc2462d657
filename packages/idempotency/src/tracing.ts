// OpenTelemetry for the idempotency layer (docs/observability.md), through @opentelemetry/api only:
// the outcome of each keyed request on the HTTP server span, and a span for the claim (sent with
// BEGIN) and one for the commit (the record travels with COMMIT). Without an SDK these are the API's
// no-ops. The key never reaches a span: only the first 16 hex digits of its SHA-256.
import { createHash } from 'node:crypto';
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

/** An idempotency key as a span may show it: the first 16 hex digits of its SHA-256. */
export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex').slice(0, 16);

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

// The API's no-op provider, which the global proxy hands out until an SDK registers one.
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();
/**
 * Whether an SDK has registered a tracer provider. Without one no span can record and nothing is
 * propagated, so the instrumentation steps aside at the cost of this check (bench/tracing).
 * Another copy of the API (not `instanceof`) counts as registered: the calls then run as usual.
 */
export function sdkRegistered(): boolean {
  const p = trace.getTracerProvider();
  return !(p instanceof ProxyTracerProvider && p.getDelegate() === NOOP_PROVIDER);
}

let provider: unknown;
let cached: Tracer | undefined;
/** This package's tracer, fetched again only when the global provider changes (getTracer allocates). */
function tracer(): Tracer {
  const current = trace.getTracerProvider();
  if (current !== provider || cached === undefined) {
    provider = current;
    cached = current.getTracer(TRACER, VERSION);
  }
  return cached;
}

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
        const code = (error as { code?: unknown } | null)?.code;
        span.setAttribute('error.type', typeof code === 'string' ? code : '_OTHER');
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
    const code = (error as { code?: unknown } | null)?.code;
    span.setAttribute('error.type', typeof code === 'string' ? code : '_OTHER');
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}
