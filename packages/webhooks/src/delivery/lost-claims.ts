// Claims whose answer was lost: the claim's COMMIT succeeded and the connection dropped before the
// reply (a primary crashing after its synchronous standby flushed). Their rows are leased to this
// worker, which holds none of them; without this they wait out the lease (60 s by default). Each
// claim gets a lease end of its own, strictly increasing, so a failed claim's lease end and the
// worker's id name exactly its rows; they are given back (sql/complete.ts, giveBack) before the
// next claim, once the database answers. A claim that failed before committing matches no row.
import type { Queryable } from '@surety/db';
import { type completeStatements, giveBackClaim } from '../sql/complete.js';

export class LostClaims {
  #lastLeaseMs = 0;
  readonly #lost: { leaseUntil: string; claimedAt: string }[] = [];
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
   * claim's), once the rows of earlier failed claims are given back. A claim that fails may have
   * committed: its lease end is kept for the next give-back.
   */
  async claim<T>(nowMs: number, leaseMs: number, run: (leaseUntilMs: number) => Promise<T>): Promise<T> {
    if (this.#lost.length > 0) await this.giveBack();
    const leaseUntilMs = Math.max(nowMs + leaseMs, this.#lastLeaseMs + 1);
    this.#lastLeaseMs = leaseUntilMs;
    try {
      return await run(leaseUntilMs);
    } catch (error) {
      this.#lost.push({
        leaseUntil: new Date(leaseUntilMs).toISOString(),
        claimedAt: new Date(nowMs).toISOString(),
      });
      throw error;
    }
  }

  /** Gives back every failed claim's rows (throws, keeping the rest, while the database is away). */
  async giveBack(): Promise<number> {
    let n = 0;
    while (this.#lost.length > 0) {
      n += await giveBackClaim(this.#q, this.#st, { workerId: this.#workerId, ...this.#lost[0]! });
      this.#lost.shift();
    }
    return n;
  }
}
