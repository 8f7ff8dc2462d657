// The worker's slot counts: its claimed rows not yet finished per (tenant, endpoint), passed to
// each claim so the fairness caps count them (sql/claim.ts), and the tenants the last claim held
// rows back for, whose freed slots wake the claim loop (docs/decisions.md, issue 15).
import type { Claimed } from '../sql/claim.js';

/** How long a freed slot of a held-back tenant waits for others before it wakes the claim loop. */
const HELD_WAKE_MS = 5;

export class WorkerSlots {
  /** Claimed rows not yet finished, per tenant and endpoint (`tenant\0endpoint`). */
  readonly #slots = new Map<string, number>();
  /** Tenants the last claim held rows back for (a cap): claim again when one of their attempts ends. */
  #held = new Set<string>();
  #heldWake: NodeJS.Timeout | undefined;
  readonly #wake: () => void;

  constructor(wake: () => void) {
    this.#wake = wake;
  }

  /** The counts as the claim takes them. */
  mine(): { tenant: string; endpointId: string; n: number }[] {
    return [...this.#slots].map(([k, n]) => {
      const [tenant, endpointId] = k.split('\0') as [string, string];
      return { tenant, endpointId, n };
    });
  }

  /** The tenants the last claim held rows back for. */
  held(tenants: Iterable<string>): void {
    this.#held = new Set(tenants);
  }

  /** A claimed row takes a slot. */
  take(row: Claimed): void {
    const k = `${row.tenant}\0${row.endpoint_id}`;
    this.#slots.set(k, (this.#slots.get(k) ?? 0) + 1);
  }

  /**
   * A claimed row is done with (sent, or handed back): its slot is free for the next claim at once
   * (the row itself stays leased until its outcome is written, so no claim can take it meanwhile).
   * When the last claim held rows of this tenant back for a cap, claim again now rather than at the
   * next poll (another tenant's attempt ending frees none of its slots); not once `running` is false.
   */
  release(row: Claimed, running: boolean): void {
    const k = `${row.tenant}\0${row.endpoint_id}`;
    const n = (this.#slots.get(k) ?? 1) - 1;
    if (n > 0) this.#slots.set(k, n);
    else this.#slots.delete(k);
    if (this.#held.has(row.tenant) && running) {
      // A few milliseconds' grace lets the attempts that end together share one claim.
      this.#heldWake ??= setTimeout(() => {
        this.#heldWake = undefined;
        this.#wake();
      }, HELD_WAKE_MS);
    }
  }

  /** Cancels a pending held-tenant wake-up (stop). */
  stop(): void {
    clearTimeout(this.#heldWake);
  }
}
