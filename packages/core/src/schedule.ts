/**
 * The default retry schedule of a webhook delivery: the delays after the first attempt, in seconds
 * (5s, 5m, 30m, 2h, 6h, 12h, 24h: eight attempts over about 45 hours). `@surety/webhooks` retries by
 * it; `@surety/events` describes it in the AsyncAPI document as text (`formatDelay`).
 */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [5, 300, 1800, 7200, 21600, 43200, 86400];

/**
 * A delay in seconds as a schedule's text form writes it (`5s`, `30m`, `24h`): in the largest of hours,
 * minutes and seconds that divides it, else in milliseconds. `parseSchedule` (webhooks) reads it back.
 * @example formatDelay(1800); // '30m'
 */
export function formatDelay(seconds: number): string {
  for (const [unit, size] of [
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (seconds >= size && seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${Math.round(seconds * 1000)}ms`;
}
