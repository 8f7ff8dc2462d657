import type { Clock } from './clock.js';

/** A `Clock` whose time only moves when told to. */
export interface FakeClock extends Clock {
  /** Moves time forward by `ms`, running every timer that falls due, in order. */
  advance(ms: number): void;
  /** Timers waiting to run. */
  readonly pending: number;
  /** The wall clock (epoch ms) matching `now()`, for `createFetch({ wallClock })`. */
  wallNow(): number;
}

interface Timer {
  at: number;
  seq: number;
  callback: () => void;
}

/**
 * A fake clock for exact tests. With `autoAdvance` (the default), whenever the process has nothing else
 * to do (a `setImmediate` later, so after pending promises and I/O callbacks) and a timer is waiting,
 * time jumps straight to the earliest timer: a backoff of 3 s takes no real time, yet `now()` reads 3 s
 * later. A transport that wants to look slow calls `advance(ms)` itself.
 * @default start 0, epoch 1_700_000_000_000, autoAdvance true
 * @example
 * const clock = createFakeClock();
 * const fetch = createFetch({ clock, wallClock: () => clock.wallNow(), transport });
 */
export function createFakeClock(
  options: { start?: number; epoch?: number; autoAdvance?: boolean } = {},
): FakeClock {
  let now = options.start ?? 0;
  const epoch = (options.epoch ?? 1_700_000_000_000) - now;
  const autoAdvance = options.autoAdvance ?? true;
  let seq = 0;
  let timers: Timer[] = [];
  let scheduled = false;

  const runDue = (until: number) => {
    for (;;) {
      let next: Timer | undefined;
      for (const timer of timers) {
        if (
          timer.at <= until &&
          (next === undefined || timer.at < next.at || (timer.at === next.at && timer.seq < next.seq))
        ) {
          next = timer;
        }
      }
      if (next === undefined) break;
      timers = timers.filter((t) => t !== next);
      now = Math.max(now, next.at);
      next.callback();
    }
    now = Math.max(now, until);
  };

  const schedule = () => {
    if (!autoAdvance || scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      if (timers.length === 0) return;
      const earliest = Math.min(...timers.map((t) => t.at));
      runDue(earliest);
      if (timers.length > 0) schedule();
    });
  };

  return {
    now: () => now,
    wallNow: () => epoch + now,
    setTimeout(callback, ms) {
      const timer: Timer = { at: now + Math.max(0, ms), seq: seq++, callback };
      timers.push(timer);
      schedule();
      return timer;
    },
    clearTimeout(handle) {
      timers = timers.filter((t) => t !== handle);
    },
    advance(ms) {
      runDue(now + ms);
    },
    get pending() {
      return timers.length;
    },
  };
}

/**
 * A random source that returns `values` in turn (and then repeats the last one), for exact jitter.
 * @example
 * const random = sequenceRandom([0.5, 0.25]);
 */
export function sequenceRandom(values: readonly number[]): () => number {
  let i = 0;
  return () => values[Math.min(i++, values.length - 1)] ?? 0;
}
