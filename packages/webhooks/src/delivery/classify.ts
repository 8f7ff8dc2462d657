// What an attempt's result means for its delivery, as a pure function: every input it depends on
// (the schedule, the clock's value, the random source, the Retry-After bound) is passed in, so the
// whole table (status or error → outcome, next delay) is unit-tested without a database
// (classify.test.ts). The circuit breaker is not an input: it acts on the endpoint's health after the
// outcomes are recorded (health.ts and its statement), never on one attempt's classification.

import { nextDelay, parseRetryAfter } from '../schedule.js';
import type { DeliveryErrorCode } from '../ssrf/errors.js';

/** Why nothing was sent: the delivery fails at once, and the receiver is not blamed. */
export type NotSentCode = 'endpoint_deleted' | 'endpoint_disabled' | 'event_deleted';

/**
 * Every `error_code` an attempt is recorded with. A custom `PostFn` may throw errors with codes of its
 * own; they are stored as they are (`string & {}` keeps the known ones visible to the editor).
 */
export type AttemptErrorCode =
  | NotSentCode
  /** A 3xx: redirects are never followed (SSRF). */
  | 'redirect_not_followed'
  /** Any other status outside 2xx. */
  | `http_${number}`
  /** The transport's own codes (ssrf/errors.ts). */
  | DeliveryErrorCode
  /** A transport error without a code. */
  | 'attempt_failed'
  | (string & {});

/** What one attempt produced, before it is classified. */
export type AttemptResult =
  | { kind: 'not_sent'; code: NotSentCode }
  | { kind: 'response'; status: number; retryAfter: string | string[] | undefined }
  /** A broker confirmed the publish (destinations/: publisher confirm, JetStream ack, PUBACK). */
  | { kind: 'confirmed' }
  | { kind: 'error'; code: AttemptErrorCode };

/** What the attempt means for the delivery. */
export type Classification =
  /** `status` is null for a broker's confirmation. */
  | { kind: 'delivered'; status: number | null; errorCode: null; gone: false }
  | { kind: 'failed'; status: number | null; errorCode: AttemptErrorCode; gone: boolean }
  | { kind: 'retry'; status: number | null; errorCode: AttemptErrorCode; delayMs: number; nextAtMs: number }
  /**
   * A 429 or 503 under adaptive throttling: recorded as an attempt that the delivery does not count,
   * due again after the bounded `Retry-After` (`retryAfterMs`, null without one) or a second.
   */
  | {
      kind: 'throttled';
      status: number;
      errorCode: AttemptErrorCode;
      delayMs: number;
      nextAtMs: number;
      retryAfterMs: number | null;
    };

export interface ClassifyInput {
  result: AttemptResult;
  /** Attempts made so far, this one included. */
  attempts: number;
  /** Delays after the first attempt, in seconds (the endpoint's, else the engine's). */
  schedule: readonly number[];
  /** The clock's value when the attempt ended. */
  nowMs: number;
  /** Random source for the schedule's jitter. */
  random: () => number;
  /** Longest receiver `Retry-After` honoured. */
  maxRetryAfterSeconds: number;
  /**
   * Adaptive throttling: a 429 or 503 is `throttled` (the attempt is not spent) rather than `retry`.
   * @default false
   */
  throttle?: boolean;
}

/** A throttled delivery without `Retry-After` is due again after this, plus up to a quarter more. */
export const THROTTLED_DELAY_MS = 1000;

/** The error code an answer with this status is recorded with; null for a 2xx. */
export function statusCode(status: number): AttemptErrorCode | null {
  if (status >= 300 && status < 400) return 'redirect_not_followed';
  if (status >= 400 || status < 200) return `http_${status}`;
  return null;
}

/**
 * How an outcome counts towards its endpoint's health: `ignored` when the endpoint is gone or
 * disabled (its health is not the receiver's), `no_send` when the event was deleted (a failure that
 * sent nothing: not counted in the breaker's streak), `throttled` for a 429/503 under adaptive
 * throttling (the receiver is alive and asks for less: it lowers the endpoint's cap and rate, not
 * the breaker's streak; it counts as a failure's time for the disable window), else `success` or
 * `failure`.
 */
export function healthEffect(
  outcome: 'delivered' | 'retry' | 'failed' | 'throttled',
  code: AttemptErrorCode | null,
): 'ignored' | 'no_send' | 'throttled' | 'success' | 'failure' {
  if (code === 'endpoint_disabled' || code === 'endpoint_deleted') return 'ignored';
  if (outcome === 'delivered') return 'success';
  if (outcome === 'throttled') return 'throttled';
  return code === 'event_deleted' ? 'no_send' : 'failure';
}

/**
 * Classifies an attempt: a 2xx is delivered; a 410, or a delivery with nothing to send, fails at
 * once; with `throttle`, a 429 or 503 is `throttled` (not spent); anything else is retried on the schedule (a 429's or 503's `Retry-After` honoured up to
 * `maxRetryAfterSeconds`), and fails when the schedule is exhausted.
 * @example
 * classify({ result: { kind: 'response', status: 503, retryAfter: '30' }, attempts: 1,
 *            schedule: [5], nowMs: 0, random: () => 0, maxRetryAfterSeconds: 3600 });
 * // → { kind: 'retry', status: 503, errorCode: 'http_503', delayMs: 30000, nextAtMs: 30000 }
 */
export function classify(input: ClassifyInput): Classification {
  const { result } = input;
  if (result.kind === 'not_sent')
    return { kind: 'failed', status: null, errorCode: result.code, gone: false };
  if (result.kind === 'confirmed') return { kind: 'delivered', status: null, errorCode: null, gone: false };
  const status = result.kind === 'response' ? result.status : null;
  const errorCode = result.kind === 'response' ? statusCode(result.status) : result.code;
  if (errorCode === null) return { kind: 'delivered', status: status!, errorCode: null, gone: false };
  if (status === 410) return { kind: 'failed', status, errorCode, gone: true };
  const retryAfterSeconds =
    result.kind === 'response' && (status === 429 || status === 503)
      ? parseRetryAfter(result.retryAfter, input.nowMs)
      : undefined;
  if (input.throttle && (status === 429 || status === 503)) {
    const retryAfterMs =
      retryAfterSeconds === undefined
        ? null
        : Math.round(Math.min(retryAfterSeconds, input.maxRetryAfterSeconds) * 1000);
    const delay = retryAfterMs ?? Math.round(THROTTLED_DELAY_MS * (1 + input.random() / 4));
    return {
      kind: 'throttled',
      status,
      errorCode: 'throttled',
      delayMs: delay,
      nextAtMs: input.nowMs + delay,
      retryAfterMs,
    };
  }
  const delayMs = nextDelay(input.schedule, input.attempts, {
    random: input.random,
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    maxRetryAfterSeconds: input.maxRetryAfterSeconds,
  });
  if (delayMs === undefined) return { kind: 'failed', status, errorCode, gone: false };
  return { kind: 'retry', status, errorCode, delayMs, nextAtMs: input.nowMs + delayMs };
}
