import { isDatabaseUnavailableError } from '@surety/db';
import type { EngineContext } from './types.js';

// A run that failed because the store was unreachable (a failover, a restart) could not give its
// key back: the key then stayed leased until the lease lapsed (30 s by default), and every retry in
// between got 409 in flight, long after the store was back (the failover test measured ~30 s of
// 409s after a ~1 s switch). The owner keeps trying instead: the give-back is fenced by its token,
// so doing it late is as safe as doing it at once, and it ends when the lease would have lapsed.

const FIRST_MS = 100;
const MOST_MS = 2_000;

/**
 * Gives a key back now, or, when the store is unavailable, retries in the background (backing off
 * from 100 ms to 2 s, each wait jittered) until it lands, fails for another reason, or `leaseEnds`
 * (epoch ms by `ctx.now()`) passes, when the lease lapses by itself. Never throws; the timers do not
 * keep the process alive.
 */
export async function giveBackOrRetry(
  ctx: EngineContext,
  giveBack: () => Promise<unknown>,
  leaseEnds: number,
): Promise<void> {
  try {
    await giveBack();
  } catch (error) {
    if (isDatabaseUnavailableError(error)) later(ctx, giveBack, leaseEnds, FIRST_MS);
  }
}

function later(
  ctx: EngineContext,
  giveBack: () => Promise<unknown>,
  leaseEnds: number,
  waitMs: number,
): void {
  const timer = setTimeout(
    () => {
      if (ctx.now() >= leaseEnds) return;
      giveBack().catch((error: unknown) => {
        if (isDatabaseUnavailableError(error)) later(ctx, giveBack, leaseEnds, Math.min(MOST_MS, waitMs * 2));
      });
    },
    waitMs / 2 + Math.random() * (waitMs / 2),
  );
  timer.unref();
}

/**
 * Runs a statement that claims a key for `giveBack`'s token. When the store becomes unavailable
 * during it, the claim may have committed with its answer lost (the primary died after the commit):
 * the token's claim is then given back as soon as the store answers, or the key would stay leased
 * with no owner. Fenced by the token, so a claim that never committed matches nothing. Rethrows.
 */
export async function afterLostAnswer<T>(
  ctx: EngineContext,
  giveBack: () => Promise<unknown>,
  leaseEnds: number,
  claim: () => Promise<T>,
): Promise<T> {
  try {
    return await claim();
  } catch (error) {
    if (isDatabaseUnavailableError(error)) later(ctx, giveBack, leaseEnds, FIRST_MS);
    throw error;
  }
}
