import { createHash, randomUUID } from 'node:crypto';
import { isDatabaseUnavailableError, migrate, type Sql, sqlState, type Tx } from '@surety/db';
import { LeaseLostError, StoreUnavailableError } from './errors.js';
import { migrations } from './migrations.js';
import { type Statements, statements } from './statements.js';

/** A response as stored and replayed: status, the headers that describe the body, and the body. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /**
   * Overrides `isFinal` for this one answer: `false` rolls it back and stores nothing (a lost race
   * the client should re-read and retry), `true` stores it whatever its status. Not stored itself.
   */
  final?: boolean;
}

export interface IdempotencyRequest {
  /** Keys are scoped per tenant: the same key in two tenants is two operations. */
  tenant: string;
  key: string;
  /** From `fingerprint()`: a different fingerprint under the same key is a client bug (422). */
  fingerprint: string;
}

export type Outcome =
  /** The handler ran. `stored` is false for a 5xx (or another non-final status), which was rolled back. */
  | { kind: 'executed'; response: StoredResponse; stored: boolean }
  /** The original completed: replay its response with `Idempotent-Replayed: true`. */
  | { kind: 'replayed'; response: StoredResponse }
  /** The original is still running: answer 409 with Retry-After. */
  | { kind: 'in_flight'; retryAfterSeconds: number }
  /** The key was used with another request: answer 422. */
  | { kind: 'mismatch' };

export interface IdempotencyOptions {
  sql: Sql;
  /** @default "surety" */
  schema?: string;
  /**
   * How long a completed key is remembered; after that the same key is a new operation.
   * @default 86_400_000 (24 h)
   */
  ttlMs?: number;
  /**
   * Lease mode: how long an in-progress key is reserved for its owner before a retry may take over.
   * @default 30_000
   */
  leaseMs?: number;
  /** Sent as `Retry-After` with a 409 while the original is in flight. @default 1 */
  retryAfterSeconds?: number;
  /** Injected clock (ms since the epoch), for tests. @default Date.now */
  now?: () => number;
  /**
   * Which answers are final and stored with the key. The others are rolled back and not stored,
   * so a retry with the same key runs again.
   * @default status < 500, except 400, 401, 403, 404, 405, 408, 412, 413, 415, 425, 428 and 429:
   * answers that say the request was not carried out (bad input, no such resource, a failed or
   * missing precondition, "try later"). A decline (402), a conflict such as out of stock (409) or
   * 422 are outcomes and are stored.
   */
  isFinal?: (status: number) => boolean;
}

// Answers that say the operation was not carried out (Stripe: "results are only saved if an API
// endpoint started executing"): bad or unauthorised input, a missing resource, a failed or missing
// precondition, "try later". A retry with the same key, once fixed, must run.
const NOT_FINAL = new Set([400, 401, 403, 404, 405, 408, 412, 413, 415, 425, 428, 429]);

/** The default of `isFinal`. */
export const isFinalStatus = (status: number): boolean => status < 500 && !NOT_FINAL.has(status);

/** An acquired lease-mode key. Only this owner may renew, complete or release it. */
export interface Lease {
  readonly key: string;
  readonly token: string;
  /** When the lease lapses unless renewed. */
  readonly expiresAt: Date;
  /** Extends the lease; throws LeaseLostError when another request took the key over. */
  renew(): Promise<void>;
  /**
   * Stores the response. Pass the transaction of the business write to commit both atomically.
   * Throws LeaseLostError when fenced off.
   */
  complete(response: StoredResponse, tx?: Tx): Promise<void>;
  /** Deletes the in-progress row so a retry runs again (the operation failed without effect). */
  release(): Promise<void>;
}

export type AcquireResult = { kind: 'acquired'; lease: Lease } | Exclude<Outcome, { kind: 'executed' }>;

class Rollback {
  constructor(readonly response: StoredResponse) {}
}

class ClaimRace {}

interface Row {
  fingerprint: string | null;
  state: 'in_progress' | 'completed' | null;
  status: number | null;
  headers: Record<string, string> | null;
  body: string | null;
  expired: boolean | null;
  lease_expired: boolean | null;
}

/** A row as the claim returns it (timestamps compared with the engine's clock in JS). */
interface ClaimRow {
  tenant: string | null;
  key: string | null;
  fingerprint: string | null;
  state: 'in_progress' | 'completed' | null;
  status: number | null;
  headers: Record<string, string> | null;
  body: string | null;
  expires_at: Date | string | null;
  lease_expires_at: Date | string | null;
}

const toRow = (r: ClaimRow, now: number): Row => ({
  fingerprint: r.fingerprint,
  state: r.state,
  status: r.status,
  headers: r.headers,
  body: r.body,
  expired: r.expires_at === null ? null : new Date(r.expires_at).getTime() <= now,
  lease_expired: r.lease_expires_at === null ? null : new Date(r.lease_expires_at).getTime() <= now,
});

/**
 * The Idempotency-Key engine. `execute` runs a handler exactly once per (tenant, key), inside one
 * transaction with the key record, and replays the stored response to every retry.
 * @example
 * const idem = createIdempotency({ sql });
 * await idem.migrate();
 * const outcome = await idem.execute({ tenant, key, fingerprint: fp }, async (tx) => {
 *   await tx.query('insert into payments …');
 *   return { status: 201, headers: { 'content-type': 'application/json' }, body };
 * });
 */
export class Idempotency {
  readonly sql: Sql;
  readonly schema: string;
  readonly ttlMs: number;
  readonly leaseMs: number;
  readonly retryAfterSeconds: number;
  readonly #now: () => number;
  readonly #st: Statements;
  readonly #isFinal: (status: number) => boolean;

  constructor(options: IdempotencyOptions) {
    this.sql = options.sql;
    this.schema = options.schema ?? 'surety';
    this.ttlMs = options.ttlMs ?? 86_400_000;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.retryAfterSeconds = options.retryAfterSeconds ?? 1;
    this.#now = options.now ?? Date.now;
    this.#isFinal = options.isFinal ?? isFinalStatus;
    this.#st = statements(this.schema);
  }

  /** Creates or upgrades the key table. */
  async migrate(): Promise<void> {
    await migrate(this.sql, { schema: this.schema, sets: [migrations] });
  }

  /** The 64-bit advisory-lock id of (tenant, key), also stored in the key's row. */
  lockId(tenant: string, key: string): string {
    // Not salted with the schema: the id is stored in the rows, and must survive a schema rename.
    // Two schemas in one database share the advisory-lock space, so the same (tenant, key) in both
    // at the same instant gets a spurious 409 at worst.
    const digest = createHash('sha256').update(tenant).update('\0').update(key).digest();
    return digest.readBigInt64BE(0).toString();
  }

  /**
   * Runs `handler` once per key, in one transaction with the key record, committing before it
   * returns. A handler that throws, or answers 5xx, is rolled back and nothing is stored.
   * Throws StoreUnavailableError when the database cannot be reached (the handler did not run,
   * or its transaction did not commit).
   */
  async execute(request: IdempotencyRequest, handler: (tx: Tx) => Promise<StoredResponse>): Promise<Outcome> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#executeOnce(request, handler);
      } catch (error) {
        if (error instanceof Rollback) return { kind: 'executed', response: error.response, stored: false };
        if (error instanceof ClaimRace && attempt === 0) continue;
        if (isDatabaseUnavailableError(error)) throw new StoreUnavailableError({ cause: error });
        throw error;
      }
    }
  }

  /**
   * The same transaction and 5xx-rollback rule as `execute`, for a request that carries no key
   * where one is optional: nothing is recorded.
   */
  async transact(handler: (tx: Tx) => Promise<StoredResponse>): Promise<StoredResponse> {
    try {
      return await this.sql.transaction(async (tx) => {
        const response = await handler(tx);
        if (!this.#final(response)) throw new Rollback(response);
        return response;
      });
    } catch (error) {
      if (error instanceof Rollback) return error.response;
      if (isDatabaseUnavailableError(error)) throw new StoreUnavailableError({ cause: error });
      throw error;
    }
  }

  async #executeOnce(
    { tenant, key, fingerprint }: IdempotencyRequest,
    handler: (tx: Tx) => Promise<StoredResponse>,
  ): Promise<Outcome> {
    const now = this.#now();
    const lockId = this.lockId(tenant, key);
    let committing = false;
    try {
      return await this.sql.transaction(
        async (tx, first) => {
          const rows = (first?.rows ?? []) as unknown as (ClaimRow & { locked: boolean })[];
          if (rows.length === 0 || !rows[0]!.locked) {
            return { kind: 'in_flight', retryAfterSeconds: this.retryAfterSeconds };
          }
          // Rows share a lock id only with another (tenant, key) on a 64-bit hash collision.
          const row = rows.find((r) => r.tenant === tenant && r.key === key);
          const seen = row ? this.#decide(toRow(row, now), fingerprint) : undefined;
          if (seen) return seen;

          const response = await handler(tx);
          if (!this.#final(response)) throw new Rollback(response);
          // The record travels with COMMIT: the layer costs no round trip of its own beyond the one
          // it shares with BEGIN (docs/decisions.md).
          tx.atCommit(
            this.#st.completeAtCommit(
              {
                tenant,
                key,
                fingerprint,
                status: response.status,
                headers: JSON.stringify(response.headers),
                body: response.body,
                createdAt: new Date(now).toISOString(),
                expiresAt: new Date(now + this.ttlMs).toISOString(),
                lockId,
              },
              row !== undefined,
            ),
          );
          committing = true;
          return { kind: 'executed', response, stored: true };
        },
        { first: { statement: this.#st.claim, params: [lockId] } },
      );
    } catch (error) {
      // The claim's snapshot predated a commit of the same key (see statements.ts): the record found
      // a live row (division by zero) or lost the race to insert it (unique violation). Nothing
      // committed; run again, which now sees the stored row.
      const state = sqlState(error);
      if (
        committing &&
        (state === '22012' ||
          (state === '23505' && (error as { table?: unknown }).table === 'idempotency_keys'))
      ) {
        throw new ClaimRace();
      }
      throw error;
    }
  }

  #final(response: StoredResponse): boolean {
    return response.final ?? this.#isFinal(response.status);
  }

  /** What a stored row means for this request, or undefined when the request may run. */
  #decide(row: Row, fingerprint: string): Exclude<Outcome, { kind: 'executed' }> | undefined {
    if (row.state === null || row.expired) return undefined;
    if (row.state === 'in_progress') {
      if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
      if (row.lease_expired) return undefined;
      return { kind: 'in_flight', retryAfterSeconds: this.retryAfterSeconds };
    }
    if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
    return {
      kind: 'replayed',
      response: { status: row.status!, headers: row.headers ?? {}, body: row.body ?? '' },
    };
  }

  /**
   * Lease mode, for handlers that call outside systems and cannot run inside one transaction: commits
   * an in-progress row with an owner token and a lease. Renew while working; `complete` (ideally in
   * the business write's transaction) or `release` when done. A crashed owner's lease expires and
   * the next retry takes over; the old owner is then fenced off.
   */
  async acquire({ tenant, key, fingerprint }: IdempotencyRequest): Promise<AcquireResult> {
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        const now = this.#now();
        const nowIso = new Date(now).toISOString();
        const token = randomUUID();
        const expiresAt = new Date(now + this.leaseMs);
        const { rows } = await this.sql.query<{ locked: boolean; claimed: boolean }>(this.#st.acquire, [
          this.lockId(tenant, key),
          tenant,
          key,
          fingerprint,
          token,
          expiresAt.toISOString(),
          nowIso,
          new Date(now + this.ttlMs).toISOString(),
        ]);
        const { locked, claimed } = rows[0]!;
        if (!locked) return { kind: 'in_flight', retryAfterSeconds: this.retryAfterSeconds };
        if (claimed) return { kind: 'acquired', lease: this.#lease(tenant, key, token, expiresAt) };
        const read = await this.sql.query<Row>(this.#st.read, [
          tenant,
          key,
          nowIso,
          this.lockId(tenant, key),
        ]);
        // The row vanished between the two statements (purged or released): claim again.
        if (read.rows.length === 0) continue;
        const decided = this.#decide(read.rows[0]!, fingerprint);
        if (decided) return decided;
      }
      return { kind: 'in_flight', retryAfterSeconds: this.retryAfterSeconds };
    } catch (error) {
      if (isDatabaseUnavailableError(error)) throw new StoreUnavailableError({ cause: error });
      throw error;
    }
  }

  #lease(tenant: string, key: string, token: string, expiresAt: Date): Lease {
    const st = this.#st;
    const lockId = this.lockId(tenant, key);
    const engine = this;
    const fenced = (rowCount: number) => {
      if (rowCount === 0) throw new LeaseLostError();
    };
    return {
      key,
      token,
      expiresAt,
      async renew() {
        const next = new Date(engine.#now() + engine.leaseMs);
        const r = await engine.sql.query(st.renew, [tenant, key, token, next.toISOString(), lockId]);
        fenced(r.rowCount);
        (this as { expiresAt: Date }).expiresAt = next;
      },
      async complete(response, tx) {
        const params = [
          tenant,
          key,
          token,
          response.status,
          JSON.stringify(response.headers),
          response.body,
          lockId,
        ];
        const r = await (tx ?? engine.sql).query(st.leaseComplete, params);
        fenced(r.rowCount);
      },
      async release() {
        const r = await engine.sql.query(st.release, [tenant, key, token, lockId]);
        fenced(r.rowCount);
      },
    };
  }

  /**
   * Lease mode as one call: acquires, renews every third of the lease while `handler` runs, and
   * completes (or releases when it throws or answers 5xx).
   */
  async withLease(
    request: IdempotencyRequest,
    handler: (lease: Lease) => Promise<StoredResponse>,
  ): Promise<Outcome> {
    const acquired = await this.acquire(request);
    if (acquired.kind !== 'acquired') return acquired;
    const { lease } = acquired;
    let renewError: unknown;
    const timer = setInterval(
      () => {
        lease.renew().catch((error: unknown) => {
          renewError = error;
        });
      },
      Math.max(50, Math.floor(this.leaseMs / 3)),
    );
    timer.unref();
    try {
      const response = await handler(lease);
      clearInterval(timer);
      if (renewError instanceof LeaseLostError) throw renewError;
      if (!this.#final(response)) {
        await lease.release();
        return { kind: 'executed', response, stored: false };
      }
      await lease.complete(response);
      return { kind: 'executed', response, stored: true };
    } catch (error) {
      clearInterval(timer);
      if (!(error instanceof LeaseLostError)) await lease.release().catch(() => {});
      throw error;
    }
  }

  /**
   * Deletes expired keys in batches of `batchSize` (short transactions, SKIP LOCKED), at most
   * `maxBatches` of them, pausing between batches so the traffic being served keeps its latency.
   * Returns how many rows were deleted.
   * @default options { batchSize: 500, maxBatches: 2000, pauseMs: as long as the last batch took }
   * @example
   * setInterval(() => void idempotency.purgeExpired(), 10 * 60_000).unref();
   */
  async purgeExpired(
    options: { batchSize?: number; maxBatches?: number; pauseMs?: number } = {},
  ): Promise<number> {
    // 500: serving p99 during a purge of a million keys 1.2× of before, at 1,000 1.2–1.6× (bench/growth).
    const batchSize = options.batchSize ?? 500;
    const maxBatches = options.maxBatches ?? 2000; // up to a million keys per call
    let total = 0;
    for (let i = 0; i < maxBatches; i++) {
      const started = performance.now();
      const { rowCount } = await this.sql.query(this.#st.purge, [
        new Date(this.#now()).toISOString(),
        batchSize,
      ]);
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
}

/** Factory for `Idempotency`. */
export const createIdempotency = (options: IdempotencyOptions): Idempotency => new Idempotency(options);
