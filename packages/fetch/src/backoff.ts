/** Backoff settings for `fullJitter`. */
export interface BackoffOptions {
  /** The base delay in milliseconds: the first retry waits up to this long. @default 200 */
  baseDelay?: number;
  /** The cap on any one computed delay, in milliseconds. @default 5000 */
  maxDelay?: number;
}

/** @default 200 */
export const DEFAULT_BASE_DELAY = 200;
/** @default 5000 */
export const DEFAULT_MAX_DELAY = 5000;

/**
 * "Full jitter" backoff from AWS's "Exponential Backoff and Jitter" (Brooker, 2015):
 * `random(0, min(cap, base * 2^retry))`, where `retry` counts from 0 for the first retry. Spreading
 * retries over the whole interval is what de-synchronises a crowd of clients that failed together;
 * of the variants measured there it does the least total work.
 * @param retry 0 for the wait before the second attempt, 1 before the third, …
 * @param random a source of numbers in [0, 1), injectable for exact tests.
 * @default baseDelay 200, maxDelay 5000
 * @example
 * fullJitter(0, {}, () => 0.5); // 100: half of min(5000, 200 * 2^0)
 */
export function fullJitter(retry: number, options: BackoffOptions = {}, random: () => number = Math.random) {
  const base = options.baseDelay ?? DEFAULT_BASE_DELAY;
  const cap = options.maxDelay ?? DEFAULT_MAX_DELAY;
  // 2 ** retry overflows to Infinity for absurd counts; Math.min keeps the cap in charge.
  return random() * Math.min(cap, base * 2 ** retry);
}
