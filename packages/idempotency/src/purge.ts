import type { EngineContext } from './types.js';

/** The options of `purgeExpired`. */
export interface PurgeOptions {
  /** Rows deleted per statement (one short transaction, SKIP LOCKED). @default 500 */
  batchSize?: number;
  /** At most this many batches per call. @default 2000 (up to a million keys) */
  maxBatches?: number;
  /** Rest between batches. @default as long as the last batch took */
  pauseMs?: number;
}

/** Deletes expired keys in batches; returns how many rows were deleted. */
export async function purgeExpired(ctx: EngineContext, options: PurgeOptions = {}): Promise<number> {
  // 500: serving p99 during a purge of a million keys 1.2× of before, at 1,000 1.2–1.6× (bench/growth).
  const batchSize = options.batchSize ?? 500;
  const maxBatches = options.maxBatches ?? 2000; // up to a million keys per call
  let total = 0;
  for (let i = 0; i < maxBatches; i++) {
    const started = performance.now();
    const { rowCount } = await ctx.sql.query(ctx.st.purge, [new Date(ctx.now()).toISOString(), batchSize]);
    total += rowCount;
    if (rowCount < batchSize) break;
    // Housekeeping yields to serving: by default it rests as long as its last batch took, so it
    // holds a connection (and its share of CPU and WAL writes) at most half of the time.
    // bench/growth measures serving p99 during a purge of a million keys against before it.
    const pause = options.pauseMs ?? performance.now() - started;
    if (pause > 0) await new Promise((r) => setTimeout(r, pause));
  }
  return total;
}
