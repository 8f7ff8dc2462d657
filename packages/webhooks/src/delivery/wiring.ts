// A worker's parts that only need wiring to its engine context, events and options: the
// endpoint-health recorder (health.ts), the POST (through the SSRF guard unless one is given), the
// broker publisher, and the outcome writer's `failed` hook (operational events).
import type { EventEmitter } from 'node:events';
import type { Tx } from '@surety/db';
import { ReceiverAuth } from '../auth/index.js';
import type { WebhooksContext } from '../context.js';
import { createBrokerPublisher, type PublishFn } from '../destinations/index.js';
import { disableEndpoint } from '../endpoints/operations.js';
import { isEndpointNotFoundError } from '../errors.js';
import { createGuardedDispatcher, type GuardedDispatcher, guardedPost } from '../ssrf/index.js';
import type { PostFn } from './attempt.js';
import { EndpointHealthRecorder } from './health.js';
import { LateHolds } from './late-holds.js';
import { isOperationalEventType, type OperationalEvent, publishOperational } from './operational.js';
import { type Completion, OutcomeWriter } from './outcome-writer.js';
import type { WorkerEventMap } from './worker-events.js';
import type { DeliveryWorkerOptions, ResolvedWorkerOptions } from './worker-options.js';

/** The health recorder, disabling endpoints as Webhooks.disableEndpoint does and reporting as `worker` events. */
export function healthRecorderFor(input: {
  worker: EventEmitter<WorkerEventMap>;
  ctx: WebhooksContext;
  options: ResolvedWorkerOptions;
}): EndpointHealthRecorder {
  const { worker, ctx, options: o } = input;
  return new EndpointHealthRecorder({
    sql: ctx.sql,
    st: ctx.st,
    circuitThreshold: o.circuitThreshold,
    circuitProbeMs: o.circuitProbeMs,
    circuitMaxProbeMs: o.circuitMaxProbeMs,
    timeoutMs: o.timeoutMs,
    flushIntervalMs: o.flushIntervalMs,
    disableAfterMs: o.disableAfterMs,
    late: new LateHolds({
      sql: ctx.sql,
      st: ctx.st,
      now: () => ctx.now(),
      error: (error) => worker.emit('worker:error', error),
    }),
    ...(o.operationalEvents
      ? {
          operational: {
            publish: (tx: Tx, e: OperationalEvent) => publishFrom(worker, ctx, tx, e),
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
      ctx.sql
        .transaction((tx) => disableEndpoint(ctx, tx, ref))
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
  ctx: WebhooksContext;
  given: DeliveryWorkerOptions;
  options: ResolvedWorkerOptions;
}): { publish: PublishFn; close: (() => Promise<void>) | undefined } {
  if (input.given.publish) return { publish: input.given.publish, close: undefined };
  const guard = input.given.guard;
  const p = createBrokerPublisher({
    allowList: guard?.allowList ?? input.ctx.allowList,
    ...(guard?.resolver ? { resolver: guard.resolver } : {}),
    ...(guard?.tls ? { tls: guard.tls } : {}),
    connectTimeoutMs: Math.min(guard?.connectTimeoutMs ?? 5000, input.options.timeoutMs),
    ...input.given.brokers,
  });
  return { publish: p.publish, close: p.close };
}

/** The worker's POST: `options.post` when given, else through a guarded dispatcher (closed at stop). */
export function postFor(input: {
  ctx: WebhooksContext;
  given: DeliveryWorkerOptions;
  options: ResolvedWorkerOptions;
}): { post: PostFn; guard: GuardedDispatcher | undefined } {
  if (input.given.post) return { post: input.given.post, guard: undefined };
  const guardOptions = {
    allowList: input.ctx.allowList,
    allowHttp: input.ctx.allowHttp,
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

/** Publishes an operational event in `tx`; reported as `operational:published` once it commits. */
export async function publishFrom(
  worker: EventEmitter<WorkerEventMap>,
  ctx: WebhooksContext,
  tx: Tx,
  e: OperationalEvent,
): Promise<void> {
  await publishOperational(ctx, tx, e, (error) => worker.emit('worker:error', error));
  tx.afterCommit(() =>
    worker.emit('operational:published', { tenant: e.tenant, type: e.type, endpointId: e.endpointId }),
  );
}

/**
 * The outcome writer's `failed` hook: `delivery.failed` for deliveries that failed for good after
 * being sent (not those of a deleted or disabled endpoint or a deleted event, which the receiver
 * did not fail; not those of an operational event: no events about events' failures).
 */
export function failedHookFor(input: { worker: EventEmitter<WorkerEventMap>; ctx: WebhooksContext }) {
  const { worker, ctx } = input;
  return {
    sql: ctx.sql,
    counts: (c: Completion) =>
      c.eventType !== null &&
      !isOperationalEventType(c.eventType) &&
      c.errorCode !== 'endpoint_disabled' &&
      c.errorCode !== 'endpoint_deleted' &&
      c.errorCode !== 'event_deleted',
    publish: async (tx: Tx, failed: Completion[]) => {
      for (const c of failed) {
        await publishFrom(worker, ctx, tx, {
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

/** The worker's outcome writer: on the engine's connection, reporting as `worker` events. */
export function outcomeWriterFor(input: {
  worker: EventEmitter<WorkerEventMap> & { readonly id: string };
  ctx: WebhooksContext;
  options: ResolvedWorkerOptions;
  stopping: () => boolean;
  written: (batch: Completion[], now: string) => Promise<void>;
  settled: () => void;
}): OutcomeWriter {
  const { worker, ctx, options: o } = input;
  return new OutcomeWriter({
    sql: ctx.sql,
    st: ctx.st,
    workerId: worker.id,
    now: () => ctx.now(),
    batchSize: o.batchSize,
    flushIntervalMs: o.flushIntervalMs,
    stopping: input.stopping,
    ...(o.operationalEvents ? { failed: failedHookFor({ worker, ctx }) } : {}),
    written: input.written,
    on: {
      error: (error) => worker.emit('worker:error', error),
      unstorable: (outcome) => worker.emit('outcome:unstorable', outcome),
      blocked: (info) => worker.emit('outcomes:blocked', info),
      resumed: (info) => worker.emit('outcomes:resumed', info),
      settled: input.settled,
    },
  });
}

/** A task run every `intervalMs` (unref'd timer), one run at a time; its failures go to `onError`. */
export class Repeating {
  readonly #timer: NodeJS.Timeout;
  #run: Promise<void> | undefined;

  constructor(task: () => Promise<unknown>, intervalMs: number, onError: (error: Error) => void) {
    this.#timer = setInterval(() => {
      this.#run ??= task()
        .then(() => undefined)
        .catch((error: unknown) => void onError(error as Error))
        .finally(() => {
          this.#run = undefined;
        });
    }, intervalMs);
    this.#timer.unref();
  }

  /** No more runs (the one in progress goes on: `idle` waits for it). */
  cancel(): void {
    clearInterval(this.#timer);
  }

  idle(): Promise<void> {
    return this.#run ?? Promise.resolve();
  }
}
