import { createDriverSql, type DriverConnection } from './driver-sql.js';
import { classify, DatabaseUnavailableError } from './errors.js';

import { onSurety } from './prisma-adapter.js';

export { onSurety, prismaAdapterOnSurety } from './prisma-adapter.js';

import { type JoinedTransaction, joinTransaction, type OuterTransaction } from './join.js';
import type { QueryOptions, QueryResult, Sql, Tx } from './types.js';

// Prisma 7 (with a driver adapter such as @prisma/adapter-pg): Surety joined to Prisma's interactive
// transaction, through its raw-SQL methods. The types are written out structurally, so that this
// module needs no generated client: any PrismaClient (or its `tx`) satisfies them.

/** The raw-SQL methods of Prisma's interactive transaction client (`prisma.$transaction(async (tx) => …)`). */
export interface PrismaTransactionClient {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}

/** A PrismaClient's interactive transaction (`$transaction(async (tx) => …)`), as {@link prismaOnSurety} calls it. */
export interface PrismaInteractive<TxClient> {
  $transaction<T>(
    fn: (tx: TxClient) => Promise<T>,
    options?: { maxWait?: number; timeout?: number },
  ): Promise<T>;
}

/** The part of a PrismaClient that {@link prismaTransaction} calls. */
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

// P2028 "Unable to start a transaction in the given time": no connection came free within `maxWait`
// (the pool is exhausted, or the server slow), and nothing was sent. Like a pool timeout (P2024), it
// means "the database is not available now": a 503 with Retry-After, not a 500. Its other P2028
// (a transaction past its `timeout`) is the handler's own doing, and stays as it is.
function startTimeout(error: unknown): unknown {
  const e = error as { code?: unknown; message?: unknown } | null;
  if (e?.code === 'P2028' && /unable to start a transaction in the given time/i.test(String(e.message))) {
    return new DatabaseUnavailableError(`database unavailable: ${String(e.message).trim()}`, {
      cause: error,
    });
  }
  return error;
}

// Prisma has no method that returns both rows and a row count: statements that return rows go
// through $queryRawUnsafe (rowCount: the rows), the others through $executeRawUnsafe (rowCount:
// the rows affected, as an `insert … on conflict do nothing` of the inbox needs).
const RETURNS_ROWS = /^\s*(select|with|values|table|show|explain)\b|\breturning\b/i;

async function run<R>(
  on: PrismaTransactionClient,
  text: string,
  params: readonly unknown[] | undefined,
  options: QueryOptions | undefined,
): Promise<QueryResult<R>> {
  if (options?.rowMode === 'array') {
    throw new TypeError('rowMode "array" is not available over Prisma: its raw queries return objects');
  }
  const values = [...(params ?? [])];
  // Prisma reports no command tag: the statement's verb stands in for it.
  const command = (/^\s*(\w+)/.exec(text)?.[1] ?? '').toUpperCase();
  try {
    if (RETURNS_ROWS.test(text)) {
      const rows = await on.$queryRawUnsafe<R[]>(text, ...values);
      return { rows, rowCount: rows.length, command, fields: [] };
    }
    return { rows: [], rowCount: await on.$executeRawUnsafe(text, ...values), command, fields: [] };
  } catch (error) {
    throw classify(sqlError(error));
  }
}

function outerOf(tx: PrismaTransactionClient): OuterTransaction {
  return {
    name: 'prisma',
    client: tx,
    query: (statement, params, options) =>
      run(tx, typeof statement === 'string' ? statement : statement.text, params, options),
  };
}

const connectionOf = (on: PrismaTransactionClient): DriverConnection => ({
  query: (text, params, options) => run(on, text, params, options),
});

/**
 * Surety's `Sql` over Prisma: each Surety transaction is one of Prisma's interactive transactions
 * (`prisma.$transaction`), so the idempotency engine, the outbox and the inbox run on Prisma's pool,
 * and the handler writes with Prisma's typed client from `tx.driver.client` ({@link prismaOf}).
 * BEGIN, the claim, the record and COMMIT are round trips of their own (Prisma pipelines nothing).
 * `options` are Prisma's interactive-transaction limits.
 * @example
 * const engine = createIdempotency({ sql: prismaSql(prisma) });
 * await engine.execute(request, async (tx) => {
 *   const order = await prismaOf<typeof prisma>(tx).order.create({ data: { note } });
 *   return { status: 201, headers: {}, body: JSON.stringify(order) };
 * });
 */
export function prismaSql<TxClient extends PrismaTransactionClient>(
  prisma: PrismaClientLike<TxClient> & PrismaTransactionClient,
  options?: { maxWait?: number; timeout?: number },
): Sql {
  return createDriverSql<TxClient>({
    name: 'prisma',
    connection: connectionOf(prisma),
    transaction: (fn) =>
      prisma
        .$transaction((tx) => fn(connectionOf(tx), tx), options)
        .catch((error: unknown) => {
          throw startTimeout(error);
        }),
  });
}

/**
 * Prisma's transaction client behind a Tx of {@link prismaSql} or {@link prismaTx}: write
 * with Prisma's typed API in the same transaction as the key, an event or an inbox record.
 */
export function prismaOf<TxClient = PrismaTransactionClient>(tx: Tx): TxClient {
  const { driver } = tx;
  if (driver.kind !== 'driver' || driver.name !== 'prisma') {
    throw new TypeError('prismaOf: this Tx is not one of @surety/db/prisma');
  }
  return driver.client as TxClient;
}

/**
 * Surety's view of Prisma's interactive transaction: pass it to `engine.using(joined)`,
 * `webhooks.publish(joined, …)` or `inbox.receive(joined, …)`, and they commit with Prisma's
 * transaction. The engine's claim runs in a SAVEPOINT (its own round trip, as are the claim and the
 * record: Prisma pipelines nothing). Call `joined.committed()` after `$transaction` resolves to run
 * the after-commit wake-ups, or use {@link prismaTransaction}, which does.
 * @example
 * await prisma.$transaction(async (tx) => {
 *   const joined = prismaTx(tx);
 *   const order = await tx.order.create({ data: { note } });
 *   await webhooks.publish(joined, { tenant, type: 'order.created', data: order });
 * });
 */
export function prismaTx(tx: PrismaTransactionClient): JoinedTransaction {
  return joinTransaction(outerOf(tx));
}

/**
 * `prisma.$transaction(fn)` with Surety joined to it: `fn` gets Prisma's transaction client and
 * Surety's view of the transaction; the after-commit wake-ups run once Prisma has committed.
 * @example
 * const outcome = await prismaTransaction(prisma, (tx, joined) =>
 *   engine.using(joined).execute(request, async () => {
 *     const order = await tx.order.create({ data: { note } });
 *     return { status: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify(order) };
 *   }),
 * );
 */
export async function prismaTransaction<TxClient extends PrismaTransactionClient, T>(
  prisma: PrismaClientLike<TxClient>,
  fn: (tx: TxClient, joined: JoinedTransaction) => Promise<T>,
  options?: { maxWait?: number; timeout?: number },
): Promise<T> {
  let joined: JoinedTransaction | undefined;
  const result = await prisma
    .$transaction((tx) => {
      joined = prismaTx(tx);
      return fn(tx, joined);
    }, options)
    .catch((error: unknown) => {
      throw startTimeout(error);
    });
  joined?.committed();
  return result;
}

/**
 * Runs `fn` in one of Prisma's interactive transactions opened on Surety's transaction `tx` (a
 * SAVEPOINT there), `prisma` being a client of {@link prismaAdapterOnSurety}. The client `fn` gets
 * is bound to `tx`'s connection when it opens, so none of its calls depends on the async context:
 * not even Prisma's batching of the `findUnique` calls made in one tick into one query, which runs
 * in the first caller's context and which {@link onSurety} alone cannot follow (docs/orm.md). Costs
 * the SAVEPOINT and its release. `options` are Prisma's interactive-transaction limits: give
 * `timeout` (Prisma's default 5 s) your slowest handler's time.
 * @example
 * await engine.execute(request, (tx) =>
 *   prismaOnSurety(tx, prismaOnSuretyClient, async (db) => {
 *     const order = await db.order.findUnique({ where: { id } });
 *     return { status: 200, headers: {}, body: JSON.stringify(order) };
 *   }),
 * );
 */
export function prismaOnSurety<TxClient, T>(
  tx: Tx,
  prisma: PrismaInteractive<TxClient>,
  fn: (db: TxClient) => Promise<T>,
  options?: { maxWait?: number; timeout?: number },
): Promise<T> {
  return onSurety(tx, () => prisma.$transaction(fn, options));
}
