import { randomUUID } from 'node:crypto';
import { isDatabaseUnavailableError, type Queryable } from '@surety/db';
import { LeaseLostError, StoreUnavailableError } from './errors.js';
import { lockId } from './lock.js';
import { afterLostAnswer, giveBackOrRetry } from './release-later.js';
import { decide, type Row } from './replay.js';
import { encodeBody } from './stored-body.js';
import type {
  AcquireResult,
  EngineContext,
  IdempotencyRequest,
  Lease,
  Outcome,
  Seen,
  StoredResponse,
} from './types.js';

// Lease mode, for handlers that call outside systems and cannot run inside one transaction: an
// in-progress row with an owner token and a lease is committed first; the owner renews it while
// working and completes (ideally in the business write's transaction) or releases it. A crashed
// owner's lease expires and the next retry takes over; the old owner is then fenced off.

/**
 * What the stored row of (`tenant`, `key`) means for a request with `fingerprint`, read at `nowMs`:
 * a replay, a mismatch, in flight; undefined without a row, or with one that lets the request run.
 */
export async function readDecision(
  ctx: EngineContext,
  tenant: string,
  key: string,
  fingerprint: string,
  nowMs: number,
): Promise<Seen | undefined> {
  const nowIso = new Date(nowMs).toISOString();
  const read = await ctx.sql.query<Row>(ctx.st.read, [tenant, key, nowIso, lockId(tenant, key)]);
  return read.rows[0] && decide({ row: read.rows[0], fingerprint, retryAfterSeconds: ctx.retryAfterSeconds });
}

/** Claims the key for a new owner, or says what the stored row means for this request. */
export async function acquire(
  ctx: EngineContext,
  { tenant, key, fingerprint, formerKeys = [] }: IdempotencyRequest,
): Promise<AcquireResult> {
  const { retryAfterSeconds } = ctx;
  try {
    // A live row under a former form of the key answers as the key's own would (read only).
    for (const former of formerKeys) {
      const decided = await readDecision(ctx, tenant, former, fingerprint, ctx.now());
      if (decided) return decided;
    }
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = ctx.now();
      const nowIso = new Date(now).toISOString();
      const token = randomUUID();
      const expiresAt = new Date(now + ctx.leaseMs);
      const lock = lockId(tenant, key);
      const release = () => ctx.sql.query(ctx.st.release, [tenant, key, token, lock]);
      const { rows } = await afterLostAnswer(ctx, release, now + ctx.leaseMs, () =>
        ctx.sql.query<{ locked: boolean; claimed: boolean }>(ctx.st.acquire, [
          lockId(tenant, key),
          tenant,
          key,
          fingerprint,
          token,
          expiresAt.toISOString(),
          nowIso,
          new Date(now + ctx.ttlMs).toISOString(),
        ]),
      );
      const { locked, claimed } = rows[0]!;
      if (!locked) return { kind: 'in_flight', retryAfterSeconds };
      if (claimed) return { kind: 'acquired', lease: makeLease(ctx, { tenant, key, token, expiresAt }) };
      // No row that decides (it vanished between the two statements, purged or released): claim again.
      const decided = await readDecision(ctx, tenant, key, fingerprint, now);
      if (decided) return decided;
    }
    return { kind: 'in_flight', retryAfterSeconds };
  } catch (error) {
    if (isDatabaseUnavailableError(error)) throw new StoreUnavailableError({ cause: error });
    throw error;
  }
}

function makeLease(
  ctx: EngineContext,
  owner: { tenant: string; key: string; token: string; expiresAt: Date },
): Lease {
  const { tenant, key, token } = owner;
  const { st, sql } = ctx;
  const lock = lockId(tenant, key);
  const fenced = (rowCount: number) => {
    if (rowCount === 0) throw new LeaseLostError();
  };
  // A write that matched nothing is harmless when this owner has completed the key already (a
  // handler of withLease that completed in its own transaction); anything else was a takeover.
  const fencedUnlessCompleted = async (rowCount: number, q: Queryable) => {
    if (rowCount > 0) return;
    const done = await q.query(st.completedBy, [tenant, key, token, lock]);
    fenced(done.rowCount);
  };
  return {
    key,
    token,
    expiresAt: owner.expiresAt,
    async renew() {
      const next = new Date(ctx.now() + ctx.leaseMs);
      const r = await sql.query(st.renew, [tenant, key, token, next.toISOString(), lock]);
      await fencedUnlessCompleted(r.rowCount, sql);
      if (r.rowCount > 0) (this as { expiresAt: Date }).expiresAt = next;
    },
    async complete(response, tx) {
      const encoded = encodeBody(response.body, ctx.bodyLimits);
      const params = [
        tenant,
        key,
        token,
        response.status,
        JSON.stringify(response.headers),
        encoded.text,
        lock,
        encoded.gzip,
        encoded.column,
      ];
      const q = tx ?? sql;
      const r = await q.query(st.leaseComplete, params);
      await fencedUnlessCompleted(r.rowCount, q);
      if (r.rowCount > 0) ctx.stored(tenant, encoded);
    },
    async release() {
      const r = await sql.query(st.release, [tenant, key, token, lock]);
      fenced(r.rowCount);
    },
  };
}

/**
 * Lease mode as one call: acquires, renews every third of the lease while `handler` runs, and
 * completes (or releases when it throws or answers 5xx).
 */
export async function withLease(
  ctx: EngineContext,
  request: IdempotencyRequest,
  handler: (lease: Lease) => Promise<StoredResponse>,
): Promise<Outcome> {
  const acquired = await acquire(ctx, request);
  if (acquired.kind !== 'acquired') return acquired;
  const { lease } = acquired;
  let renewError: unknown;
  const timer = setInterval(
    () => {
      lease.renew().catch((error: unknown) => {
        renewError = error;
      });
    },
    Math.max(50, Math.floor(ctx.leaseMs / 3)),
  );
  timer.unref();
  try {
    const response = await handler(lease);
    clearInterval(timer);
    if (renewError instanceof LeaseLostError) throw renewError;
    if (!ctx.final(response)) {
      await lease.release();
      return { kind: 'executed', response, stored: false };
    }
    await lease.complete(response);
    return { kind: 'executed', response, stored: true };
  } catch (error) {
    clearInterval(timer);
    if (!(error instanceof LeaseLostError))
      await giveBackOrRetry(ctx, () => lease.release(), ctx.now() + ctx.leaseMs);
    throw error;
  }
}
