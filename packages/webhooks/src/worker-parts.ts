// A worker's parts that only need wiring to its events and options: the endpoint-health recorder
// (health.ts), the POST (through the SSRF guard unless one is given), and one attempt's run.
import type { EventEmitter } from 'node:events';
import type { Tx } from '@surety/db';
import { completionOf, type PostFn, sendAttempt } from './attempt.js';
import { ReceiverAuth } from './auth/index.js';
import { classify } from './classify.js';
import { createBrokerPublisher, type PublishFn } from './destinations/index.js';
import { isEndpointNotFoundError } from './errors.js';
import { EndpointHealthRecorder } from './health.js';
import type { WebhooksInternals } from './internals.js';
import { isOperationalEventType, type OperationalEvent, publishOperational } from './operational.js';
import type { Completion } from './outcome-writer.js';
import type { Claimed } from './sql/claim.js';
import { createGuardedDispatcher, type GuardedDispatcher, guardedPost } from './ssrf/index.js';
import { AttemptSpan, sdkRegistered } from './tracing.js';
import type { Webhooks } from './webhooks.js';
import type { WorkerEventMap } from './worker-events.js';
import type { DeliveryWorkerOptions, ResolvedWorkerOptions } from './worker-options.js';

/** The health recorder, disabling endpoints through `webhooks` and reporting as `worker` events. */
export function healthRecorderFor(input: {
  worker: EventEmitter<WorkerEventMap>;
  webhooks: Webhooks;
  internals: WebhooksInternals;
  options: ResolvedWorkerOptions;
}): EndpointHealthRecorder {
  const { worker, webhooks: w, internals: i, options: o } = input;
  return new EndpointHealthRecorder({
    sql: i.sql,
    st: i.st,
    circuitThreshold: o.circuitThreshold,
    circuitProbeMs: o.circuitProbeMs,
    circuitMaxProbeMs: o.circuitMaxProbeMs,
    timeoutMs: o.timeoutMs,
    flushIntervalMs: o.flushIntervalMs,
    disableAfterMs: o.disableAfterMs,
    ...(o.operationalEvents
      ? {
          operational: {
            publish: (tx: Tx, e: OperationalEvent) => publishFrom(worker, w, tx, e),
            quietMs: o.circuitNoticeQuietMs,
          },
        }
      : {}),
    throttle: {
      enabled: o.adaptiveThrottling,
      decrease: o.throttleDecrease,
      minRate: o.throttleMinRate,
      maxCap: o.maxInFlightPerEndpoint,
      recoverMs: o.throttleRecoverMs,
      latencyFactor: o.throttleLatencyFactor,
      latencyFloorMs: o.throttleLatencyFloorMs,
    },
    // An endpoint deleted meanwhile has nothing left to disable (EndpointNotFoundError → false).
    disable: (ref) =>
      i.sql
        .transaction((tx) => w.disableEndpoint(tx, ref))
        .catch((error: unknown) => (isEndpointNotFoundError(error) ? false : Promise.reject(error))),
    on: {
      breaker: (action, r) => {
        const e = { tenant: r.tenant, endpointId: r.id };
        if (action === 'open') worker.emit('circuit:opened', { ...e, held: r.held });
        else if (action === 'probe_failed') worker.emit('circuit:probe_failed', { ...e, held: r.held });
        else worker.emit('circuit:closed', { ...e, released: r.released });
      },
      disabled: (info) => worker.emit('endpoint:disabled', info),
      throttled: (info) => worker.emit('throttle:decreased', info),
    },
  });
}

/**
 * The worker's broker publisher: `options.publish` when given, else pooled connections checked by
 * the guard's SSRF rules (closed at stop).
 */
export function publishFor(input: {
  webhooks: Webhooks;
  given: DeliveryWorkerOptions;
  options: ResolvedWorkerOptions;
}): { publish: PublishFn; close: (() => Promise<void>) | undefined } {
  if (input.given.publish) return { publish: input.given.publish, close: undefined };
  const guard = input.given.guard;
  const p = createBrokerPublisher({
    allowList: guard?.allowList ?? input.webhooks.allowList,
    ...(guard?.resolver ? { resolver: guard.resolver } : {}),
    ...(guard?.tls ? { tls: guard.tls } : {}),
    connectTimeoutMs: Math.min(guard?.connectTimeoutMs ?? 5000, input.options.timeoutMs),
    ...input.given.brokers,
  });
  return { publish: p.publish, close: p.close };
}

/** The worker's POST: `options.post` when given, else through a guarded dispatcher (closed at stop). */
export function postFor(input: {
  webhooks: Webhooks;
  given: DeliveryWorkerOptions;
  options: ResolvedWorkerOptions;
}): { post: PostFn; guard: GuardedDispatcher | undefined } {
  if (input.given.post) return { post: input.given.post, guard: undefined };
  const guardOptions = {
    allowList: input.webhooks.allowList,
    allowHttp: input.webhooks.allowHttp,
    timeoutMs: input.options.timeoutMs,
    ...input.given.guard,
  };
  const guard = createGuardedDispatcher(guardOptions);
  // auth/: endpoints with receiver authentication; their tokens and mTLS connections close with the guard.
  const auth = new ReceiverAuth({ guard, guardOptions, options: input.given.auth });
  return {
    post: (url, req) => (req.auth ? auth.post(url, req, req.auth) : guardedPost(guard, url, req)),
    guard: { ...guard, close: () => Promise.all([guard.close(), auth.close()]).then(() => {}) },
  };
}

/** What every attempt of one worker runs with (made once, at construction). */
export interface AttemptParts {
  worker: EventEmitter<WorkerEventMap>;
  webhooks: Webhooks;
  internals: WebhooksInternals;
  options: ResolvedWorkerOptions;
  post: PostFn;
  publish: PublishFn;
}

/**
 * One attempt as the worker runs it: sent (attempt.ts), timed, classified (classify.ts), reported
 * as `attempt:finished`, and turned into the completion the outcome writer records.
 */
export async function runAttempt(input: AttemptParts, row: Claimed): Promise<Completion> {
  const { worker, internals: i, options: o } = input;
  const startedMs = i.now();
  const started = performance.now();
  // tracing.ts: a span linked to the publisher's trace, when an SDK is registered.
  const span = sdkRegistered() ? new AttemptSpan(row) : undefined;
  const post = span ? span.post(input.post, row.endpoint_trace_context !== false) : input.post;
  const sent = await sendAttempt({ row, post, publish: input.publish, timeoutMs: o.timeoutMs, startedMs });
  const durationMs = Math.round(performance.now() - started);
  const endMs = i.now();
  const c = classify({
    result: sent.result,
    attempts: row.attempts,
    schedule: input.webhooks.scheduleFor(row.retry_schedule, o.schedule),
    nowMs: endMs,
    random: o.random,
    maxRetryAfterSeconds: o.maxRetryAfterSeconds,
    throttle: o.adaptiveThrottling,
  });
  span?.end(sent, c);
  // The event is built only for someone listening (the service's metrics do; a bare worker has none).
  if (worker.listenerCount('attempt:finished') > 0) {
    worker.emit('attempt:finished', {
      deliveryId: row.id,
      eventId: row.event_id,
      endpointId: row.endpoint_id,
      tenant: row.tenant,
      attempt: row.attempts,
      outcome: c.kind,
      status: c.status,
      errorCode: c.errorCode,
      durationMs,
      latencyMs: endMs - new Date(row.created_at).getTime(),
    });
  }
  return completionOf({ row, sent, classification: c, startedMs, durationMs });
}

/** Publishes an operational event in `tx`; reported as `operational:published` once it commits. */
export async function publishFrom(
  worker: EventEmitter<WorkerEventMap>,
  w: Webhooks,
  tx: Tx,
  e: OperationalEvent,
): Promise<void> {
  await publishOperational(w, tx, e, (error) => worker.emit('worker:error', error));
  tx.afterCommit(() =>
    worker.emit('operational:published', { tenant: e.tenant, type: e.type, endpointId: e.endpointId }),
  );
}

/**
 * The outcome writer's `failed` hook: `delivery.failed` for deliveries that failed for good after
 * being sent (not those of a deleted or disabled endpoint or a deleted event, which the receiver
 * did not fail; not those of an operational event: no events about events' failures).
 */
export function failedHookFor(input: {
  worker: EventEmitter<WorkerEventMap>;
  webhooks: Webhooks;
  internals: WebhooksInternals;
}) {
  const { worker, webhooks: w, internals: i } = input;
  return {
    sql: i.sql,
    counts: (c: Completion) =>
      c.eventType !== null &&
      !isOperationalEventType(c.eventType) &&
      c.errorCode !== 'endpoint_disabled' &&
      c.errorCode !== 'endpoint_deleted' &&
      c.errorCode !== 'event_deleted',
    publish: async (tx: Tx, failed: Completion[]) => {
      for (const c of failed) {
        await publishFrom(worker, w, tx, {
          tenant: c.tenant,
          type: 'delivery.failed',
          endpointId: c.endpointId,
          data: {
            deliveryId: c.id,
            eventId: c.eventId,
            eventType: c.eventType,
            attempts: c.attempt,
            lastStatus: c.status,
            lastError: c.errorCode,
            failedAt: c.startedAt,
          },
        });
      }
    },
  };
}
