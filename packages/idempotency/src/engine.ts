import { migrate, type Sql, type Tx } from '@surety/db';
import * as claim from './claim.js';
import { type Completer, type CompleterOptions, createCompleter } from './completer.js';
import { storedChannel, warningChannel } from './diagnostics.js';
import { isFinalStatus } from './final.js';
import * as lease from './lease.js';
import { lockId } from './lock.js';
import { migrations } from './migrations.js';
import { type PhaseStatements, phaseStatements } from './phase-statements.js';
import { type PhasedOperation, runPhased } from './phases.js';
import { type PurgeOptions, purgeExpired } from './purge.js';
import { statements } from './statements.js';
import type {
  AcquireResult,
  EngineContext,
  IdempotencyOptions,
  IdempotencyRequest,
  IdempotencyWarning,
  Lease,
  Outcome,
  StoredInfo,
  StoredResponse,
} from './types.js';

/** Per PGlite `Sql`, the lock ids in flight in this process (see claim.ts); none on PostgreSQL. */
const IN_FLIGHT = new WeakMap<Sql, Set<string>>();
function inFlightOf(sql: Sql): Set<string> | undefined {
  if (sql.kind !== 'pglite') return undefined;
  let held = IN_FLIGHT.get(sql);
  if (!held) {
    held = new Set();
    IN_FLIGHT.set(sql, held);
  }
  return held;
}

/**
 * The Idempotency-Key engine. `execute` runs a handler exactly once per (tenant, key), inside one
 * transaction with the key record, and replays the stored response to every retry. Atomic mode is
 * in claim.ts, lease mode in lease.ts, housekeeping in purge.ts; this class holds the settings.
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
  readonly #ctx: EngineContext;
  readonly #options: IdempotencyOptions;
  readonly #phases: PhaseStatements;

  constructor(options: IdempotencyOptions) {
    this.#options = options;
    this.sql = options.sql;
    this.schema = options.schema ?? 'surety';
    this.ttlMs = options.ttlMs ?? 86_400_000;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.retryAfterSeconds = options.retryAfterSeconds ?? 1;
    const isFinal = options.isFinal ?? isFinalStatus;
    const onStored = options.onStored;
    const onWarning = options.onWarning ?? ((warning: IdempotencyWarning) => console.warn(warning.message));
    const warn = (warning: IdempotencyWarning) => {
      onWarning(warning);
      if (warningChannel.hasSubscribers) warningChannel.publish(warning);
    };
    for (const [name, value] of [
      ['compressAboveBytes', options.compressAboveBytes],
      ['maxStoredBodyBytes', options.maxStoredBodyBytes],
    ] as const)
      if (value !== undefined && !(typeof value === 'number' && value >= 0 && !Number.isNaN(value)))
        throw new RangeError(`${name} must be a number of bytes ≥ 0 (or Infinity), got ${String(value)}`);
    this.#phases = phaseStatements(this.schema);
    this.#ctx = {
      sql: this.sql,
      st: statements(this.schema),
      ttlMs: this.ttlMs,
      leaseMs: this.leaseMs,
      retryAfterSeconds: this.retryAfterSeconds,
      now: options.now ?? Date.now,
      inFlight: inFlightOf(this.sql),
      final: (response) => response.final ?? isFinal(response.status),
      bodyLimits: {
        compressAboveBytes: options.compressAboveBytes ?? 2048,
        maxStoredBodyBytes: options.maxStoredBodyBytes ?? 1_048_576,
      },
      stored: (tenant, body) => {
        if (!onStored && !storedChannel.hasSubscribers) return;
        const info: StoredInfo = {
          tenant,
          bodyBytes: body.bodyBytes,
          storedBytes: body.storedBytes,
          encoding: body.encoding,
        };
        try {
          onStored?.(info);
        } catch {
          // a metrics callback must not fail a request that has committed
        }
        if (storedChannel.hasSubscribers) storedChannel.publish(info);
      },
      warnEmpty: (options.warnOnEmptyTransaction ?? process.env.NODE_ENV !== 'production') ? warn : undefined,
    };
  }

  /**
   * The same engine (schema, TTL, clock, `isFinal`) on another `Sql`: a transaction an ORM opened,
   * seen through `joinTransaction` (@surety/db) or an ORM adapter (`@surety/db/postgres-js`, …).
   * `execute` then claims the key in a SAVEPOINT of that transaction, and the key commits when, and
   * only when, the ORM's transaction commits.
   * @example
   * await pgjs.begin((trx) => engine.using(postgresTx(trx)).execute(request, handler));
   */
  using(sql: Sql): Idempotency {
    return new Idempotency({ ...this.#options, sql });
  }

  /** Creates or upgrades the key table. */
  async migrate(): Promise<void> {
    await migrate(this.sql, { schema: this.schema, sets: [migrations] });
  }

  /** The 64-bit advisory-lock id of (tenant, key), also stored in the key's row. */
  lockId(tenant: string, key: string): string {
    return lockId(tenant, key);
  }

  /**
   * Runs `handler` once per key, in one transaction with the key record, committing before it
   * returns. A handler that throws, or answers 5xx, is rolled back and nothing is stored.
   * Throws StoreUnavailableError when the database cannot be reached (the handler did not run,
   * or its transaction did not commit).
   */
  execute(request: IdempotencyRequest, handler: (tx: Tx) => Promise<StoredResponse>): Promise<Outcome> {
    return claim.execute(this.#ctx, request, handler);
  }

  /**
   * The same transaction and 5xx-rollback rule as `execute`, for a request that carries no key
   * where one is optional: nothing is recorded.
   */
  transact(handler: (tx: Tx) => Promise<StoredResponse>): Promise<StoredResponse> {
    return claim.transact(this.#ctx, handler);
  }

  /**
   * Lease mode, for handlers that call outside systems and cannot run inside one transaction: commits
   * an in-progress row with an owner token and a lease. Renew while working; `complete` (ideally in
   * the business write's transaction) or `release` when done. A crashed owner's lease expires and
   * the next retry takes over; the old owner is then fenced off.
   */
  acquire(request: IdempotencyRequest): Promise<AcquireResult> {
    return lease.acquire(this.#ctx, request);
  }

  /**
   * Lease mode as one call: acquires, renews every third of the lease while `handler` runs, and
   * completes (or releases when it throws or answers 5xx).
   */
  withLease(
    request: IdempotencyRequest,
    handler: (lease: Lease) => Promise<StoredResponse>,
  ): Promise<Outcome> {
    return lease.withLease(this.#ctx, request, handler);
  }

  /**
   * Phased mode (docs/side-effects.md), for a request that calls an outside system: runs
   * `operation` on a lease-mode key, each local phase in its own transaction with the key's
   * recovery point, each external call outside any transaction with a derived key. A retry with
   * the same key and fingerprint resumes from the last committed phase and finishes the work; a
   * duplicate while it runs is `in_flight`; another fingerprint is `mismatch`. `input` (JSON) is
   * stored with the key, so `completer` can finish a run nobody retries.
   * @example
   * const outcome = await idem.phased({ tenant, key, fingerprint: fp }, createPayment, body);
   */
  phased<I>(request: IdempotencyRequest, operation: PhasedOperation<I>, input: I): Promise<Outcome> {
    return runPhased(this.#ctx, this.#phases, request, operation, input);
  }

  /**
   * The completer: finds phased operations whose lease lapsed (their process died, or their run
   * failed and nobody retried) and drives each to a final answer with its registered operation.
   * @example
   * const completer = idem.completer({ operations: [createPayment] });
   * completer.start(); // … await completer.stop() on shutdown
   */
  completer(options: CompleterOptions): Completer {
    return createCompleter(this.#ctx, this.#phases, options);
  }

  /**
   * Deletes expired keys in batches of `batchSize` (short transactions, SKIP LOCKED, committed
   * with `synchronous_commit = off`), at most `maxBatches` of them and for at most `maxDurationMs`,
   * resting after each batch so that it works at most `dutyCycle` of the time (measured), and the
   * traffic being served keeps its latency. Returns how many rows were deleted.
   * @default options { batchSize: 200, maxBatches: 5000, dutyCycle: 0.2, maxDurationMs: 300000, asyncCommit: true }
   * @example
   * setInterval(() => void idempotency.purgeExpired(), 10 * 60_000).unref();
   */
  purgeExpired(options: PurgeOptions = {}): Promise<number> {
    return purgeExpired(this.#ctx, options);
  }
}

/** Factory for `Idempotency`. */
export const createIdempotency = (options: IdempotencyOptions): Idempotency => new Idempotency(options);
