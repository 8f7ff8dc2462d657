/**
 * Time, injectable. Everything in this package that reads the time or waits goes through a Clock, so
 * tests drive it exactly (see `createFakeClock` in `@surety/fetch/testing`).
 * @example
 * const clock: Clock = { now: () => performance.now(), setTimeout, clearTimeout };
 */
export interface Clock {
  /** Milliseconds on a monotonic scale; only differences are used. */
  now(): number;
  /** Runs `callback` after `ms` milliseconds; returns a handle for `clearTimeout`. */
  setTimeout(callback: () => void, ms: number): unknown;
  /** Cancels a pending `setTimeout`. */
  clearTimeout(handle: unknown): void;
}

/**
 * The real clock: `performance.now()` (monotonic, unaffected by wall-clock jumps) and Node's timers.
 * They are deliberately not unref'd: a script awaiting a call that is sleeping before its retry must
 * not exit in the middle of it. Every timer is cleared as soon as its wait is over.
 * @example
 * createFetch({ clock: systemClock });
 */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout(callback, ms) {
    return setTimeout(callback, ms);
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

/**
 * Waits `ms` on `clock`; rejects with the signal's reason the moment `signal` aborts (also when it is
 * already aborted), so a caller's abort is honoured during backoff too.
 * @example
 * await sleep(systemClock, 250, { signal: controller.signal });
 */
export function sleep(
  clock: Clock,
  ms: number,
  options: { signal?: AbortSignal | null } = {},
): Promise<void> {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(signal!.reason);
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
