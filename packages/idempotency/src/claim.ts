import { isDatabaseUnavailableError, pgErrorInfo, type Statement, type Tx } from '@surety/db';
import { StoreUnavailableError } from './errors.js';
import { lockId } from './lock.js';
import { type ClaimRow, decide, jsonColumn, toRow } from './replay.js';
import { type EncodedBody, encodeBody } from './stored-body.js';
import { ExecutionSpans, sdkRegistered } from './tracing.js';
import type {
  EngineContext,
  IdempotencyRequest,
  IdempotencyWarning,
  Outcome,
  StoredResponse,
} from './types.js';

// Atomic mode: the key is claimed with BEGIN, the handler runs in the same transaction, and the
// completed row travels with COMMIT.

/** A non-final answer: thrown to roll the transaction back, caught to return the answer. */
class Rollback {
  constructor(readonly response: StoredResponse) {}
}

const EMPTY =
  "a keyed request answered 2xx but its transaction wrote nothing: were the writes sent through another connection (the application's usual ORM instance) instead of the handler's transaction? Then they are not atomic with the Idempotency-Key, and a retry after a failure runs them twice. Write through `tx` (kyselyOf(tx), drizzleOf(tx), knexOf(tx), …): https://github.com/surety-dev/surety/blob/main/docs/orm.md";

/** The naive-ORM guard: warns, once COMMIT has succeeded, when the transaction has no id. */
async function warnIfEmpty(
  warn: (warning: IdempotencyWarning) => void,
  tx: Tx,
  wroteNothing: Statement,
  at: { tenant: string; key: string; status: number },
): Promise<void> {
  const { rows } = await tx.query<{ empty: boolean }>(wroteNothing);
  if (rows[0]?.empty) {
    tx.afterCommit(() =>
      warn({
        code: 'SURETY_IDEMPOTENCY_EMPTY_TRANSACTION',
        message: `surety: ${EMPTY} (tenant ${at.tenant}, status ${at.status})`,
        ...at,
      }),
    );
  }
}

/** The violated constraint is the key table's primary key (named by the migration's default). */
const isKeyTable = (info: { constraint?: string; table?: string }): boolean =>
  info.constraint === 'idempotency_keys_pkey' || info.table === 'idempotency_keys';

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
  const held = ctx.inFlight;
  if (held === undefined) return executeRetrying(ctx, request, handler);
  // PGlite runs one transaction at a time, so the original's advisory lock is released before a
  // duplicate's claim can run: the duplicate would queue behind it and get its replay. The lock ids
  // this process has in flight stand in for the lock, and the duplicate gets in_flight at once, as
  // on PostgreSQL. (One PGlite database belongs to one process, so this sees every request.)
  const id = lockId(request.tenant, request.key);
  if (held.has(id)) return { kind: 'in_flight', retryAfterSeconds: ctx.retryAfterSeconds };
  held.add(id);
  try {
    return await executeRetrying(ctx, request, handler);
  } finally {
    held.delete(id);
  }
}

async function executeRetrying(
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
  { tenant, key, fingerprint, formerKeys = [] }: IdempotencyRequest,
  handler: Handler,
): Promise<Outcome> {
  const now = ctx.now();
  const lock = lockId(tenant, key);
  const lockIds = [lock, ...formerKeys.map((k) => lockId(tenant, k))];
  let committing = false;
  let encoded: EncodedBody | undefined;
  const spans = sdkRegistered() ? new ExecutionSpans() : undefined; // tracing.ts
  try {
    const outcome = await ctx.sql.transaction<Outcome>(
      async (tx, first) => {
        const claimed = first?.rows[0] as { locked: boolean; rows: ClaimRow[] | string | null } | undefined;
        if (!claimed?.locked) {
          spans?.claimed('in_flight');
          return { kind: 'in_flight', retryAfterSeconds: ctx.retryAfterSeconds };
        }
        // The stored rows, as one JSON array (statements.ts); a driver that leaves json unparsed
        // hands over its text. Rows share a lock id only with another (tenant, key) on a 64-bit
        // hash collision.
        const rows = jsonColumn(claimed.rows) ?? [];
        const row = rows.find((r) => r.tenant === tenant && r.key === key);
        const judge = (r: ClaimRow) =>
          decide({ row: toRow(r, now), fingerprint, retryAfterSeconds: ctx.retryAfterSeconds });
        const seen = row ? judge(row) : undefined;
        spans?.claimed(seen?.kind ?? 'executed');
        if (seen) return seen;
        // A live row under a former form of the key answers as the key's own would (read only).
        for (const former of formerKeys) {
          const r = rows.find((x) => x.tenant === tenant && x.key === former);
          const seenFormer = r ? judge(r) : undefined;
          if (seenFormer) return seenFormer;
        }

        const response = await handler(tx);
        if (!ctx.final(response)) throw new Rollback(response);
        encoded = encodeBody(response.body, ctx.bodyLimits);
        if (ctx.warnEmpty && response.status >= 200 && response.status < 300) {
          await warnIfEmpty(ctx.warnEmpty, tx, ctx.st.wroteNothing, { tenant, key, status: response.status });
        }
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
              body: encoded.text,
              bodyGzip: encoded.gzip,
              bodyEncoding: encoded.column,
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
      {
        first: {
          before: [{ statement: ctx.st.claimLock, params: [lock] }],
          ...(lockIds.length <= 2
            ? { statement: ctx.st.claim, params: [lock, lockIds[1] ?? null] }
            : { statement: ctx.st.claimMany, params: [`{${lockIds.join(',')}}`] }),
        },
      },
    );
    if (outcome.kind === 'executed' && encoded) ctx.stored(tenant, encoded);
    spans?.ended();
    return outcome;
  } catch (error) {
    spans?.ended(error instanceof Rollback ? undefined : error);
    // The claim's snapshot predated a commit of the same key (see statements.ts): the record found
    // a live row (division by zero) or lost the race to insert it (unique violation). Nothing
    // committed; run again, which now sees the stored row.
    // Read whichever fields the driver under the transaction uses (pgErrorInfo): an ORM's
    // postgres.js or Prisma reports the constraint and table under other names than node-postgres.
    const info = committing ? pgErrorInfo(error) : undefined;
    if (info?.code === '22012' || (info?.code === '23505' && isKeyTable(info))) throw new ClaimRace();
    throw error;
  }
}
