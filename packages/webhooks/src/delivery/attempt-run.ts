// One attempt as a worker runs it: sent (attempt.ts), timed, classified (classify.ts), reported as
// `attempt:finished`, and turned into the completion the outcome writer records.
import type { EventEmitter } from 'node:events';
import type { WebhooksContext } from '../context.js';
import type { PublishFn } from '../destinations/index.js';
import { scheduleFor } from '../schedule.js';
import type { Claimed } from '../sql/claim.js';
import { AttemptSpan, sdkRegistered } from '../tracing.js';
import { completionOf, type PostFn, sendAttempt } from './attempt.js';
import { classify } from './classify.js';
import type { Completion } from './outcome-writer.js';
import type { WorkerEventMap } from './worker-events.js';
import type { ResolvedWorkerOptions } from './worker-options.js';

/** What every attempt of one worker runs with (made once, at construction). */
export interface AttemptParts {
  worker: EventEmitter<WorkerEventMap>;
  ctx: WebhooksContext;
  options: ResolvedWorkerOptions;
  post: PostFn;
  publish: PublishFn;
}

/**
 * One attempt as the worker runs it: sent (attempt.ts), timed, classified (classify.ts), reported
 * as `attempt:finished`, and turned into the completion the outcome writer records.
 */
export async function runAttempt(input: AttemptParts, row: Claimed): Promise<Completion> {
  const { worker, ctx, options: o } = input;
  const startedMs = ctx.now();
  const started = performance.now();
  // tracing.ts: a span linked to the publisher's trace, when an SDK is registered.
  const span = sdkRegistered() ? new AttemptSpan(row) : undefined;
  const post = span ? span.post(input.post, row.endpoint_trace_context !== false) : input.post;
  const sent = await sendAttempt({ row, post, publish: input.publish, timeoutMs: o.timeoutMs, startedMs });
  const durationMs = Math.round(performance.now() - started);
  const endMs = ctx.now();
  const c = classify({
    result: sent.result,
    attempts: row.attempts,
    schedule: scheduleFor(row.retry_schedule, o.schedule),
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
