import { DEFAULT_RETRY_SCHEDULE, parseRetryAfter as retryAfterMs } from '@surety/core';

/**
 * The retry schedule: delays after the first attempt, in seconds (`@surety/core`'s
 * `DEFAULT_RETRY_SCHEDULE`, which `@surety/events` documents).
 * @default 5s, 5m, 30m, 2h, 6h, 12h, 24h (eight attempts over about 45 hours)
 */
export const DEFAULT_SCHEDULE: readonly number[] = DEFAULT_RETRY_SCHEDULE;

const UNIT: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 };

/** Parses `5s,5m,30m,2h,6h,12h,24h` (units ms, s, m, h, d) into seconds. */
export function parseSchedule(text: string): number[] {
  const parts = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (parts.length === 0 || parts.length > 50) throw new Error('a retry schedule has 1 to 50 delays');
  return parts.map((part) => {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(part);
    if (!m) throw new Error(`bad delay in retry schedule: ${JSON.stringify(part)} (use e.g. 5s, 30m, 2h)`);
    const seconds = Number(m[1]) * UNIT[m[2]!]!;
    if (seconds <= 0 || seconds > 7 * 86400) throw new Error(`retry delay out of range (0, 7d]: ${part}`);
    return seconds;
  });
}

export interface NextAttempt {
  /** Milliseconds from now, or undefined when the schedule is exhausted (the delivery fails). */
  delayMs: number | undefined;
}

/**
 * The delay before attempt `attempts + 1`, after `attempts` failed ones. Jitter only ever adds
 * delay (up to `jitter` × the delay), so no retry is earlier than the schedule says. A `Retry-After`
 * from the receiver (429/503) is honoured when it asks for longer, up to `maxRetryAfterSeconds`.
 */
export function nextDelay(
  schedule: readonly number[],
  attempts: number,
  options: {
    random?: () => number;
    jitter?: number;
    retryAfterSeconds?: number;
    maxRetryAfterSeconds?: number;
  } = {},
): number | undefined {
  const base = schedule[attempts - 1];
  if (base === undefined) return undefined;
  const jitter = options.jitter ?? 0.1;
  let seconds = base * (1 + jitter * (options.random ?? Math.random)());
  if (options.retryAfterSeconds !== undefined && Number.isFinite(options.retryAfterSeconds)) {
    seconds = Math.max(seconds, Math.min(options.retryAfterSeconds, options.maxRetryAfterSeconds ?? 3600));
  }
  return Math.round(seconds * 1000);
}

/**
 * `Retry-After` as seconds (delta-seconds or HTTP-date, RFC 9110 §10.2.3), or undefined when absent or
 * invalid: `@surety/core`'s `parseRetryAfter` (milliseconds) for the first value of a header. Delay-seconds
 * of any length count: a value longer than anyone honours is capped (`nextDelay` then caps it at
 * `maxRetryAfterSeconds`), not ignored.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const ms = retryAfterMs(Array.isArray(value) ? value[0] : value, now);
  return ms === undefined ? undefined : ms / 1000;
}

/** The schedule a delivery follows: its endpoint's own when it has one, else the engine's. */
export const scheduleFor = (
  endpointSchedule: number[] | null,
  engineSchedule: readonly number[] = DEFAULT_SCHEDULE,
) => (endpointSchedule && endpointSchedule.length > 0 ? endpointSchedule : engineSchedule);
