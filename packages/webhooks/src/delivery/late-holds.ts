// What a circuit breaker's close could not see (sql/releases.ts), released by the worker that closed
// it, once the close committed:
// - at once, what another worker's hold moved while the close waited for the endpoint's lock;
// - 1 s, 10 s and 60 s later, what a publish held behind the probe in a transaction that committed
//   after the close (so the close could not release it): such a delivery waits a second or so, not
//   until the hold horizon (an hour by default). A worker that stops first runs those releases once
//   as it stops. A transaction open longer than the last release is left to the horizon
//   (docs/decisions.md, "Session 21").
import type { Sql } from '@surety/db';
import { idTimePrefix } from '../ids.js';
import type { Statements } from '../sql/index.js';
import { type ClosedEndpoint, releaseAfterClose } from '../sql/releases.js';

/** When, after a close, what publishes held is released. */
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

/** The endpoints of one batch whose breakers closed, and their releases still to come. */
interface Closed {
  endpoints: readonly ClosedEndpoint[];
  idFloor: string;
  timers: NodeJS.Timeout[];
  left: number;
}

/** One worker's releases after the breakers it closed. */
export class LateHolds {
  readonly #options: LateHoldOptions;
  readonly #scheduled = new Set<Closed>();
  readonly #running = new Set<Promise<void>>();

  constructor(options: LateHoldOptions) {
    this.#options = options;
  }

  /**
   * The breakers of `endpoints` closed at `closedAt` (ms), committed: releases what other workers'
   * holds moved now, and schedules the releases of what publishes held. Never throws (a failure is
   * reported; the held deliveries then wait for their hold to end).
   */
  async closed(endpoints: readonly ClosedEndpoint[], closedAt: number): Promise<void> {
    if (endpoints.length === 0) return;
    const later: Closed = {
      endpoints,
      idFloor: idTimePrefix('dlv', closedAt - LATE_HOLD_WINDOW_MS),
      timers: [],
      left: LATE_HOLD_RELEASES_MS.length,
    };
    for (const ms of LATE_HOLD_RELEASES_MS) {
      const timer = setTimeout(() => {
        if (--later.left === 0) this.#scheduled.delete(later);
        void this.#release(later.endpoints, later.idFloor);
      }, ms);
      timer.unref();
      later.timers.push(timer);
    }
    this.#scheduled.add(later);
    await this.#release(endpoints, undefined);
  }

  #release(endpoints: readonly ClosedEndpoint[], idFloor: string | undefined): Promise<void> {
    const o = this.#options;
    const nowIso = new Date(o.now()).toISOString();
    const run: Promise<void> = releaseAfterClose(o.sql, o.st, {
      endpoints,
      nowIso,
      ...(idFloor === undefined ? {} : { idFloor }),
    })
      .then(
        () => undefined,
        (error: unknown) => o.error(error instanceof Error ? error : new Error(String(error))),
      )
      .finally(() => this.#running.delete(run));
    this.#running.add(run);
    return run;
  }

  /** Runs once now the releases still to come (their timers cancelled), and waits for every release. */
  async stop(): Promise<void> {
    for (const later of this.#scheduled) {
      for (const timer of later.timers) clearTimeout(timer);
      void this.#release(later.endpoints, later.idFloor);
    }
    this.#scheduled.clear();
    while (this.#running.size > 0) await Promise.all(this.#running);
  }
}
