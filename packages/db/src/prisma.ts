import { classify } from './errors.js';
import { type JoinedTransaction, joinTransaction, type OuterTransaction } from './join.js';
import type { QueryResult } from './types.js';

// Prisma 7 (with a driver adapter such as @prisma/adapter-pg): Surety joined to Prisma's interactive
// transaction, through its raw-SQL methods. The types are written out structurally, so that this
// module needs no generated client: any PrismaClient (or its `tx`) satisfies them.

/** The raw-SQL methods of Prisma's interactive transaction client (`prisma.$transaction(async (tx) => …)`). */
export interface PrismaTransactionClient {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}

/** The part of a PrismaClient that {@link prismaTransactionWithSurety} calls. */
export interface PrismaClientLike<TxClient extends PrismaTransactionClient = PrismaTransactionClient> {
  $transaction<T>(
    fn: (tx: TxClient) => Promise<T>,
    options?: { maxWait?: number; timeout?: number; isolationLevel?: string },
  ): Promise<T>;
}

// Prisma reports a statement's failure as its own error (P2010, P2002, …) around the driver
// adapter's, which keeps PostgreSQL's SQLSTATE as `originalCode`. The engines read SQLSTATE from
// `code` (and a unique violation's table from `table`): rebuilt here, with Prisma's error as cause.
function sqlError(error: unknown): unknown {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0 && seen.size < 10) {
    const e = queue.shift() as Record<string, unknown> | undefined;
    if (typeof e !== 'object' || e === null || seen.has(e)) continue;
    seen.add(e);
    if (typeof e.originalCode === 'string' && /^[0-9A-Z]{5}$/.test(e.originalCode)) {
      const message = typeof e.originalMessage === 'string' ? e.originalMessage : String(error);
      return Object.assign(new Error(message, { cause: error }), {
        code: e.originalCode,
        ...(typeof e.table === 'string' ? { table: e.table } : {}),
      });
    }
    const meta = e.meta as Record<string, unknown> | undefined;
    queue.push(e.cause, meta?.driverAdapterError, (meta?.driverAdapterError as { cause?: unknown })?.cause);
  }
  return error;
}

// Prisma has no method that returns both rows and a row count: statements that return rows go
// through $queryRawUnsafe (rowCount: the rows), the others through $executeRawUnsafe (rowCount:
// the rows affected, as an `insert … on conflict do nothing` of the inbox needs).
const RETURNS_ROWS = /^\s*(select|with|values|table|show|explain)\b|\breturning\b/i;

function outerOf(tx: PrismaTransactionClient): OuterTransaction {
  return {
    client: tx,
    async query(statement, params) {
      const text = typeof statement === 'string' ? statement : statement.text;
      const values = [...(params ?? [])];
      try {
        if (RETURNS_ROWS.test(text)) {
          const rows = await tx.$queryRawUnsafe<never[]>(text, ...values);
          return { rows, rowCount: rows.length } as QueryResult<never>;
        }
        return { rows: [], rowCount: await tx.$executeRawUnsafe(text, ...values) };
      } catch (error) {
        throw classify(sqlError(error));
      }
    },
  };
}

/**
 * Surety's view of Prisma's interactive transaction: pass it to `engine.using(joined)`,
 * `webhooks.publish(joined, …)` or `inbox.receive(joined, …)`, and they commit with Prisma's
 * transaction. The engine's claim runs in a SAVEPOINT (its own round trip, as are the claim and the
 * record: Prisma pipelines nothing). Call `joined.committed()` after `$transaction` resolves to run
 * the after-commit wake-ups, or use {@link prismaTransactionWithSurety}, which does.
 * @example
 * await prisma.$transaction(async (tx) => {
 *   const joined = joinPrisma(tx);
 *   const order = await tx.order.create({ data: { note } });
 *   await webhooks.publish(joined, { tenant, type: 'order.created', data: order });
 * });
 */
export function joinPrisma(tx: PrismaTransactionClient): JoinedTransaction {
  return joinTransaction(outerOf(tx));
}

/**
 * `prisma.$transaction(fn)` with Surety joined to it: `fn` gets Prisma's transaction client and
 * Surety's view of the transaction; the after-commit wake-ups run once Prisma has committed.
 * @example
 * const outcome = await prismaTransactionWithSurety(prisma, (tx, joined) =>
 *   engine.using(joined).execute(request, async () => {
 *     const order = await tx.order.create({ data: { note } });
 *     return { status: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify(order) };
 *   }),
 * );
 */
export async function prismaTransactionWithSurety<TxClient extends PrismaTransactionClient, T>(
  prisma: PrismaClientLike<TxClient>,
  fn: (tx: TxClient, joined: JoinedTransaction) => Promise<T>,
  options?: { maxWait?: number; timeout?: number },
): Promise<T> {
  let joined: JoinedTransaction | undefined;
  const result = await prisma.$transaction((tx) => {
    joined = joinPrisma(tx);
    return fn(tx, joined);
  }, options);
  joined?.committed();
  return result;
}
