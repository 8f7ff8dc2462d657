// Retention by DELETE (Webhooks.purge), in batches; `maintain` (maintain.ts) drops whole windows.
import type { WebhooksContext } from '../context.js';
import { purgeBatch } from '../sql/retention.js';

export interface PurgeOptions {
  olderThanDays: number;
  batchSize?: number;
  maxBatches?: number;
}

/** Deletes events older than `olderThanDays` with their deliveries and attempts; how many events. */
export async function purge(ctx: WebhooksContext, options: PurgeOptions): Promise<number> {
  const cutoff = new Date(ctx.now() - options.olderThanDays * 86_400_000).toISOString();
  const batch = options.batchSize ?? 1000;
  let total = 0;
  for (let i = 0; i < (options.maxBatches ?? 100); i++) {
    const n = await purgeBatch(ctx.sql, ctx.st.tables, { cutoffIso: cutoff, batchSize: batch });
    total += n;
    if (n < batch) break;
  }
  return total;
}
