// Claims whose answer was lost: the claim's COMMIT succeeded and the connection dropped before the
// reply (a primary crashing after its synchronous standby flushed). Their rows are leased to this
// worker, which holds none of them; without this they wait out the lease (60 s by default). COMMIT is
// sent only after the take returned its rows, so a claim that can have committed has told its ids;
// with its lease end (one per claim, strictly increasing) and the worker's id they fence exactly its
// rows, given back (sql/complete.ts, giveBack) before the next claim and at stop.
import type { Queryable } from '@surety/db';
import { type completeStatements, giveBackClaim } from '../sql/complete.js';

export class LostClaims {
  #lastLeaseMs = 0;
  readonly #lost: { leaseUntil: string; ids: string[] }[] = [];
  readonly #q: Queryable;
  readonly #st: ReturnType<typeof completeStatements>;
  readonly #workerId: string;

  constructor(q: Queryable, st: ReturnType<typeof completeStatements>, workerId: string) {
    this.#q = q;
    this.#st = st;
    this.#workerId = workerId;
  }

  /**
   * Runs a claim made at `nowMs` with its own lease end (`nowMs + leaseMs`, after every earlier
   * claim's), once the rows of earlier failed claims are given back. `taken` is told the ids the
   * take returned; a claim that fails after that may have committed, and is kept for a give-back.
   */
  async claim<T>(
    nowMs: number,
    leaseMs: number,
    run: (leaseUntilMs: number, taken: (ids: string[]) => void) => Promise<T>,
  ): Promise<T> {
    if (this.#lost.length > 0) await this.giveBack();
    const leaseUntilMs = Math.max(nowMs + leaseMs, this.#lastLeaseMs + 1);
    this.#lastLeaseMs = leaseUntilMs;
    let ids: string[] = [];
    try {
      return await run(leaseUntilMs, (taken) => {
        ids = taken;
      });
    } catch (error) {
      if (ids.length > 0) this.#lost.push({ leaseUntil: new Date(leaseUntilMs).toISOString(), ids });
      throw error;
    }
  }

  /** Gives back every failed claim's rows (throws, keeping the rest, while the database is away). */
  async giveBack(): Promise<number> {
    let n = 0;
    // Taken off first: a give-back running beside another (drain() beside the loop) never repeats
    // or drops one; put back if it fails.
    for (let next = this.#lost.shift(); next !== undefined; next = this.#lost.shift()) {
      try {
        n += await giveBackClaim(this.#q, this.#st, { workerId: this.#workerId, ...next });
      } catch (error) {
        this.#lost.unshift(next);
        throw error;
      }
    }
    return n;
  }
}
