import type { EngineContext } from './types.js';

/** The options of `purgeExpired`. */
export interface PurgeOptions {
  /** Rows deleted per statement (its own short transaction, SKIP LOCKED). @default 200 */
  batchSize?: number;
  /** At most this many batches per call. @default 5000 (a million keys at the default batch size) */
  maxBatches?: number;
  /**
   * The share of the time the purge works, between 0 (exclusive) and 1: after each batch it rests
   * `duration × (1 − dutyCycle) ÷ dutyCycle`, measured, so it holds its connection (and a core of
   * the database server) at most this fraction of the time. 1: no rest. @default 0.2
   */
  dutyCycle?: number;
  /** A fixed rest between batches, in ms, instead of the duty cycle. */
  pauseMs?: number;
  /** Stops (between batches) once the call has run this long, in ms. @default 300000 (5 minutes) */
  maxDurationMs?: number;
  /**
   * Commit each batch with `synchronous_commit = off`: a batch lost to a crash only leaves its
   * expired keys for the next purge, and the purge no longer waits for (and adds) a WAL flush per
   * batch. @default true
   */
  asyncCommit?: boolean;
  /** Stops between batches (and ends a rest early) once aborted: a service shutting down. */
  signal?: AbortSignal;
}

/** Time as the pacing sees it: a monotonic clock and a rest that ends early when aborted. */
export interface PurgeTimer {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

const realTimer: PurgeTimer = {
  now: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    }),
};

/** The defaults, as `purgeExpired` applies them (docs/operations.md; bench/growth measured them). */
export const PURGE_DEFAULTS = {
  batchSize: 200,
  maxBatches: 5000,
  dutyCycle: 0.2,
  maxDurationMs: 300_000,
  asyncCommit: true,
} as const;

function check(name: string, value: number, ok: boolean, what: string): void {
  if (!ok) throw new RangeError(`purgeExpired: ${name} must be ${what}, got ${value}`);
}

/** The options with their defaults, or a RangeError naming the one that is wrong. */
export function purgeSettings(options: PurgeOptions = {}) {
  const s = {
    batchSize: options.batchSize ?? PURGE_DEFAULTS.batchSize,
    maxBatches: options.maxBatches ?? PURGE_DEFAULTS.maxBatches,
    dutyCycle: options.dutyCycle ?? PURGE_DEFAULTS.dutyCycle,
    pauseMs: options.pauseMs,
    maxDurationMs: options.maxDurationMs ?? PURGE_DEFAULTS.maxDurationMs,
    asyncCommit: options.asyncCommit ?? PURGE_DEFAULTS.asyncCommit,
  };
  check('batchSize', s.batchSize, Number.isInteger(s.batchSize) && s.batchSize >= 1, 'an integer ≥ 1');
  check('maxBatches', s.maxBatches, Number.isInteger(s.maxBatches) && s.maxBatches >= 1, 'an integer ≥ 1');
  check('dutyCycle', s.dutyCycle, s.dutyCycle > 0 && s.dutyCycle <= 1, 'above 0 and at most 1');
  if (s.pauseMs !== undefined)
    check('pauseMs', s.pauseMs, Number.isFinite(s.pauseMs) && s.pauseMs >= 0, 'a number ≥ 0');
  check('maxDurationMs', s.maxDurationMs, s.maxDurationMs > 0, 'above 0');
  return s;
}

/**
 * Runs `batch(limit)` (it returns the rows it deleted) until one comes back short, resting after
 * each as the options say, within `maxBatches` and `maxDurationMs`. Returns the rows deleted.
 */
export async function pacedPurge(
  batch: (limit: number) => Promise<number>,
  options: PurgeOptions = {},
  timer: PurgeTimer = realTimer,
): Promise<number> {
  const s = purgeSettings(options);
  const signal = options.signal;
  const started = timer.now();
  let total = 0;
  for (let i = 0; i < s.maxBatches && !signal?.aborted; i++) {
    const t = timer.now();
    const rows = await batch(s.batchSize);
    total += rows;
    if (rows < s.batchSize) break;
    const took = timer.now() - t;
    // Housekeeping yields to serving: measured time, so a slow batch (a busy server, cold pages)
    // earns a longer rest, and the purge uses at most `dutyCycle` of one connection and core.
    const rest = s.pauseMs ?? (took * (1 - s.dutyCycle)) / s.dutyCycle;
    if (timer.now() + rest - started >= s.maxDurationMs) break;
    if (rest > 0) await timer.sleep(rest, signal);
  }
  return total;
}

/** Deletes expired keys in paced batches; returns how many rows were deleted. */
export async function purgeExpired(ctx: EngineContext, options: PurgeOptions = {}): Promise<number> {
  const asyncCommit = options.asyncCommit ?? PURGE_DEFAULTS.asyncCommit;
  const st = asyncCommit ? ctx.st.purgeAsyncCommit : ctx.st.purge;
  const now = new Date(ctx.now()).toISOString();
  // Each batch starts where the last one stopped (an expiry time, ties included): the index entries
  // of the rows already deleted are not stepped over again. A row skipped because a request held
  // it (SKIP LOCKED) is left for the next call, which starts from the oldest again.
  let from = '-infinity';
  return pacedPurge(async (limit) => {
    const { rows } = await ctx.sql.query<{ n: number; last: string | null }>(st, [now, limit, from]);
    const row = rows[0]!;
    if (row.last !== null) from = row.last;
    return Number(row.n);
  }, options);
}
