// Long-polls: a read that found nothing waits here, holding no connection and no transaction,
// until a NOTIFY on the engine's channel (the one workers wait on: any commit that queued
// deliveries), the next check (`checkMs`, whether or not LISTEN works: behind a transaction
// pooler it does not, and a NOTIFY is only a hint), or its deadline. A tenant holds at most
// `maxPerTenant` waits at once in a process: the next is refused (PollLimitError, a 429).
import type { Sql } from '@surety/db';
import { PollLimitError } from '../errors.js';
import { contextOf, type Webhooks } from '../webhooks.js';

/** Options of {@link PollWaits}. */
export interface PollWaitsOptions {
  /** Most long-polls one tenant may have waiting at once in this process. @default 10 */
  maxPerTenant?: number;
  /**
   * How often a waiting read checks again without a NOTIFY (a NOTIFY makes it at once). Over a
   * transaction pooler, where LISTEN is unavailable, this is the latency of a long-poll.
   * @default 1000
   */
  checkMs?: number;
  /** LISTEN for wake-ups (off: checks every `checkMs` only). @default true */
  listen?: boolean;
}

/**
 * The waits of one process. `acquire(tenant)` takes a slot (throws PollLimitError past the cap),
 * `wait(ms, signal)` sleeps until a wake-up, the next check or `ms`; `close()` ends every wait.
 * @example
 * const waits = new PollWaits(webhooks, { maxPerTenant: 10 });
 * const release = waits.acquire(tenant);
 * try { while (!page.data.length && Date.now() < deadline) { await waits.wait(deadline - Date.now()); page = await webhooks.readPoll(sql, input); } }
 * finally { release(); }
 */
export class PollWaits {
  readonly maxPerTenant: number;
  readonly #checkMs: number;
  readonly #sql: Sql;
  readonly #channel: string;
  readonly #listen: boolean;
  readonly #held = new Map<string, number>();
  readonly #sleepers = new Set<() => void>();
  #listening: Promise<(() => Promise<void>) | undefined> | undefined;
  #closed = false;

  constructor(webhooks: Webhooks, options: PollWaitsOptions = {}) {
    const ctx = contextOf(webhooks);
    this.#sql = ctx.sql;
    this.#channel = ctx.channel;
    this.maxPerTenant = options.maxPerTenant ?? 10;
    this.#checkMs = options.checkMs ?? 1000;
    this.#listen = options.listen ?? true;
  }

  /** Whether close() was called: a waiting read answers what it has. */
  get closing(): boolean {
    return this.#closed;
  }

  /** Waits held now by a tenant (all tenants: no argument). */
  held(tenant?: string): number {
    if (tenant !== undefined) return this.#held.get(tenant) ?? 0;
    let n = 0;
    for (const v of this.#held.values()) n += v;
    return n;
  }

  /** Takes one of the tenant's slots; the function returned gives it back (once). */
  acquire(tenant: string): () => void {
    const n = this.#held.get(tenant) ?? 0;
    if (n >= this.maxPerTenant) throw new PollLimitError(this.maxPerTenant);
    this.#held.set(tenant, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#held.get(tenant) ?? 1) - 1;
      if (left <= 0) this.#held.delete(tenant);
      else this.#held.set(tenant, left);
    };
  }

  /** Resolves on a wake-up, after `checkMs`, after `ms`, on `signal`, or at close: the caller reads again. */
  async wait(ms: number, signal?: AbortSignal): Promise<void> {
    if (this.#closed || signal?.aborted || ms <= 0) return;
    if (this.#listen) await this.#startListening();
    if (this.#closed || signal?.aborted) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.#sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.min(ms, this.#checkMs));
      signal?.addEventListener('abort', done, { once: true });
      this.#sleepers.add(done);
    });
  }

  /** Ends every wait and stops listening. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#wakeAll();
    const unlisten = await this.#listening;
    await unlisten?.().catch(() => {});
  }

  #wakeAll(): void {
    for (const done of [...this.#sleepers]) done();
  }

  // One LISTEN per process, opened by the first wait; when it cannot be (a transaction pooler, a
  // driver without it), the checks every checkMs still find every event.
  #startListening(): Promise<unknown> {
    this.#listening ??= this.#sql.listen(this.#channel, () => this.#wakeAll()).catch(() => undefined);
    return this.#listening;
  }
}
