// OpenTelemetry for receivers (docs/observability.md): a span for each verification and for the
// inbox's de-duplication decision. This package promises no third-party runtime dependency and runs
// where Node's module resolution does not (Web Crypto runtimes), so @opentelemetry/api is an optional
// peer here, loaded once without blocking the module: until it has loaded, or where it is not
// installed, nothing is traced. Nothing secret goes in: no body, no header, no secret; the event id
// and which secret index matched.
import type * as Api from '@opentelemetry/api';
import { errorCode, type PackageTracer, packageTracer } from '@surety/core';

const TRACER = '@surety/webhook-verify';
const VERSION = '0.1.0';

let api: typeof Api | undefined;
let traced: PackageTracer<Api.Tracer> | undefined;
// A variable specifier, so bundlers leave the optional peer alone.
const specifier = '@opentelemetry/api';
/** Settles once the optional peer has loaded, or failed to (never rejects). */
export const tracingLoaded: Promise<void> = import(specifier).then(
  (m: typeof Api) => {
    api = m;
    traced = packageTracer<Api.Tracer>(m, TRACER, VERSION);
  },
  () => undefined,
);

function start(name: string, kind: 'internal' | 'client', attributes: Api.Attributes): Api.Span | undefined {
  if (api === undefined || traced === undefined || !traced.sdkRegistered()) return undefined;
  const span = traced
    .tracer()
    .startSpan(name, { kind: kind === 'client' ? api.SpanKind.CLIENT : api.SpanKind.INTERNAL, attributes });
  if (span.isRecording()) return span;
  span.end();
  return undefined;
}

interface VerifiedLike {
  format: string;
  id: string | undefined;
  signature: string;
  secretIndex: number;
}

function ok(span: Api.Span | undefined, verified: VerifiedLike): void {
  if (span === undefined) return;
  span.setAttributes({
    'surety.webhook.format': verified.format,
    'surety.webhook.signature': verified.signature,
    'surety.webhook.secret_index': verified.secretIndex,
    'surety.webhook.verified': true,
  });
  if (verified.id !== undefined) span.setAttribute('surety.webhook.event_id', verified.id);
  span.end();
}

function failed(span: Api.Span | undefined, error: unknown): void {
  if (span === undefined) return;
  const type = errorCode(error);
  span.setAttributes({ 'surety.webhook.verified': false, 'error.type': type });
  span.setStatus({ code: api!.SpanStatusCode.ERROR, message: type });
  span.end();
}

/** Runs one verification (sync or async) inside a `webhook verify` span. */
export function traceVerify<T extends VerifiedLike | Promise<VerifiedLike>>(run: () => T): T {
  const span = start('webhook verify', 'internal', {});
  if (span === undefined) return run();
  let out: T;
  try {
    out = run();
  } catch (error) {
    failed(span, error);
    throw error;
  }
  if (out instanceof Promise) {
    return out.then(
      (v) => {
        ok(span, v);
        return v;
      },
      (error: unknown) => {
        failed(span, error);
        throw error;
      },
    ) as T;
  }
  ok(span, out as VerifiedLike);
  return out;
}

/** The inbox's record statement in a span; the decision (`new` or `duplicate`) once known. */
export async function traceInboxRecord(
  eventId: string,
  record: () => Promise<{ duplicate: boolean }>,
): Promise<{ duplicate: boolean }> {
  const span = start('insert webhook_inbox', 'client', {
    'db.system.name': 'postgresql',
    'db.operation.name': 'insert',
    'db.collection.name': 'webhook_inbox',
    'surety.webhook.event_id': eventId,
  });
  if (span === undefined) return record();
  try {
    const r = await record();
    const decision = r.duplicate ? 'duplicate' : 'new';
    span.setAttribute('surety.inbox.decision', decision);
    api!.trace.getActiveSpan()?.setAttribute('surety.inbox.decision', decision);
    span.end();
    return r;
  } catch (error) {
    failed(span, error);
    throw error;
  }
}
