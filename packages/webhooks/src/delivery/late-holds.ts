// Deliveries a publish held behind an open breaker's probe, in a transaction that committed after the
// breaker closed: the close released every held delivery it could see, and could not see these. The
// worker that closed the breaker releases them a few times after the close (sql/health.ts,
// lateHolds), so they wait a second or so, not until the hold horizon (an hour by default). A
// transaction open longer than the last release, or a worker gone before it, leaves them to the
// horizon, as before (docs/decisions.md).
import type { Sql } from '@surety/db';
import { idTimePrefix } from '../ids.js';
import { releaseLateHolds } from '../sql/health.js';
import type { Statements } from '../sql/index.js';

/** When, after a close, its endpoint's late holds are released. */
export const LATE_HOLD_RELEASES_MS = [1000, 10_000, 60_000] as const;
/** Deliveries published this long before a close are looked at (a transaction open longer is not). */
export const LATE_HOLD_WINDOW_MS = 5 * 60_000;

export interface LateHoldOptions {
  sql: Sql;
  st: Statements;
  /** The engine's clock. */
  now: () => number;
  error: (error: Error) => void;
}

/** One worker's releases after the breakers it closed; `stop` cancels those not yet run. */
export class LateHolds {
  readonly #options: LateHoldOptions;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #running = new Set<Promise<void>>();

  constructor(options: LateHoldOptions) {
    this.#options = options;
  }

  /** The breaker of `tenant`'s endpoint `id` closed at `closedAt` (ms): its releases are scheduled. */
  closed(tenant: string, id: string, closedAt: number): void {
    const idFloor = idTimePrefix('dlv', closedAt - LATE_HOLD_WINDOW_MS);
    for (const ms of LATE_HOLD_RELEASES_MS) {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        const run = this.#release(tenant, id, idFloor).finally(() => this.#running.delete(run));
        this.#running.add(run);
      }, ms);
      timer.unref();
      this.#timers.add(timer);
    }
  }

  async #release(tenant: string, id: string, idFloor: string): Promise<void> {
    const o = this.#options;
    const nowIso = new Date(o.now()).toISOString();
    try {
      await releaseLateHolds(o.sql, o.st, { tenant, id, nowIso, idFloor });
    } catch (error) {
      o.error(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Cancels the releases not yet run and waits for those running. */
  async stop(): Promise<void> {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    await Promise.all(this.#running);
  }
}
