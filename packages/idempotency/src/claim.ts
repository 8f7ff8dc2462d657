import { isDatabaseUnavailableError, sqlState, type Tx } from '@surety/db';
import { StoreUnavailableError } from './errors.js';
import { lockId } from './lock.js';
import { type ClaimRow, decide, toRow } from './replay.js';
import { ExecutionSpans, sdkRegistered } from './tracing.js';
import type { EngineContext, IdempotencyRequest, Outcome, StoredResponse } from './types.js';

// Atomic mode: the key is claimed with BEGIN, the handler runs in the same transaction, and the
// completed row travels with COMMIT.

/** A non-final answer: thrown to roll the transaction back, caught to return the answer. */
class Rollback {
  constructor(readonly response: StoredResponse) {}
}

/** The claim's snapshot predated a commit of the same key: nothing committed, run once more. */
class ClaimRace {}

type Handler = (tx: Tx) => Promise<StoredResponse>;

/**
 * Runs `handler` once per key, in one transaction with the key record, committing before it
 * returns. A handler that throws, or answers 5xx, is rolled back and nothing is stored.
 * Throws StoreUnavailableError when the database cannot be reached.
 */
export async function execute(
  ctx: EngineContext,
  request: IdempotencyRequest,
  handler: Handler,
): Promise<Outcome> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await executeOnce(ctx, request, handler);
    } catch (error) {
      if (error instanceof Rollback) return { kind: 'executed', response: error.response, stored: false };
      if (error instanceof ClaimRace && attempt === 0) continue;
      if (isDatabaseUnavailableError(error)) throw new StoreUnavailableError({ cause: error });
      throw error;
    }
  }
}

/** The same transaction and rollback rule as `execute`, for a request without a key: nothing recorded. */
export async function transact(ctx: EngineContext, handler: Handler): Promise<StoredResponse> {
  try {
    return await ctx.sql.transaction(async (tx) => {
      const response = await handler(tx);
      if (!ctx.final(response)) throw new Rollback(response);
      return response;
    });
  } catch (error) {
    if (error instanceof Rollback) return error.response;
    if (isDatabaseUnavailableError(error)) throw new StoreUnavailableError({ cause: error });
    throw error;
  }
}

async function executeOnce(
  ctx: EngineContext,
  { tenant, key, fingerprint }: IdempotencyRequest,
  handler: Handler,
): Promise<Outcome> {
  const now = ctx.now();
  const lock = lockId(tenant, key);
  let committing = false;
  const spans = sdkRegistered() ? new ExecutionSpans() : undefined; // tracing.ts
  try {
    const outcome = await ctx.sql.transaction<Outcome>(
      async (tx, first) => {
        const rows = (first?.rows ?? []) as unknown as (ClaimRow & { locked: boolean })[];
        if (rows.length === 0 || !rows[0]!.locked) {
          spans?.claimed('in_flight');
          return { kind: 'in_flight', retryAfterSeconds: ctx.retryAfterSeconds };
        }
        // Rows share a lock id only with another (tenant, key) on a 64-bit hash collision.
        const row = rows.find((r) => r.tenant === tenant && r.key === key);
        const seen = row
          ? decide({ row: toRow(row, now), fingerprint, retryAfterSeconds: ctx.retryAfterSeconds })
          : undefined;
        spans?.claimed(seen?.kind ?? 'executed');
        if (seen) return seen;

        const response = await handler(tx);
        if (!ctx.final(response)) throw new Rollback(response);
        // The record travels with COMMIT: the layer costs no round trip of its own beyond the one
        // it shares with BEGIN (docs/decisions.md).
        tx.atCommit(
          ctx.st.completeAtCommit(
            {
              tenant,
              key,
              fingerprint,
              status: response.status,
              headers: JSON.stringify(response.headers),
              body: response.body,
              createdAt: new Date(now).toISOString(),
              expiresAt: new Date(now + ctx.ttlMs).toISOString(),
              lockId: lock,
            },
            row !== undefined,
          ),
        );
        committing = true;
        spans?.committing();
        return { kind: 'executed', response, stored: true };
      },
      { first: { statement: ctx.st.claim, params: [lock] } },
    );
    spans?.ended();
    return outcome;
  } catch (error) {
    spans?.ended(error instanceof Rollback ? undefined : error);
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
