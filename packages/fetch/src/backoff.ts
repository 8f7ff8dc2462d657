/** Backoff settings for `fullJitter`. */
export interface BackoffOptions {
  /** The base delay in milliseconds: the first retry waits up to this long. @default 200 */
  baseDelayMs?: number;
  /** The cap on any one computed delay, in milliseconds. @default 5000 */
  maxDelayMs?: number;
  /** A source of numbers in [0, 1), injectable for exact tests. @default Math.random */
  random?: () => number;
}

/** The default backoff base, in milliseconds. @default 200 */
export const DEFAULT_BASE_DELAY_MS = 200;
/** The default cap on one backoff wait, in milliseconds. @default 5000 */
export const DEFAULT_MAX_DELAY_MS = 5000;

/**
 * "Full jitter" backoff from AWS's "Exponential Backoff and Jitter" (Brooker, 2015):
 * `random(0, min(cap, base * 2^retry))`, where `retry` counts from 0 for the first retry. Spreading
 * retries over the whole interval is what de-synchronises a crowd of clients that failed together;
 * of the variants measured there it does the least total work.
 * @param retry 0 for the wait before the second attempt, 1 before the third, …
 * @default baseDelayMs 200, maxDelayMs 5000, random Math.random
 * @example
 * fullJitter(0, { random: () => 0.5 }); // 100: half of min(5000, 200 * 2^0)
 */
export function fullJitter(retry: number, options: BackoffOptions = {}): number {
  const base = options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
  const cap = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const random = options.random ?? Math.random;
  // 2 ** retry overflows to Infinity for absurd counts; Math.min keeps the cap in charge.
  return random() * Math.min(cap, base * 2 ** retry);
}
