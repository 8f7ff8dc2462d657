import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { createDriverSql, type DriverConnection } from './driver-sql.js';
import { NestedTransactionError, TransactionOwnedError } from './errors.js';
import { type JoinedTransaction, joinTransaction, type OuterTransaction } from './join.js';
import type { QueryOptions, QueryResult, Sql, Tx } from './types.js';

// TypeORM 0.3 through its QueryRunner, both ways: an EntityManager whose statements run on
// Surety's Tx, and Surety joined to a transaction TypeORM opened. TypeORM's own transactions nest as
// SAVEPOINTs either way (its QueryRunner counts them in `transactionDepth`); the one thing it may
// not do is COMMIT or ROLLBACK the outermost transaction, which belongs to someone else.

/** The parts of TypeORM's PostgresQueryRunner this module sets (not in QueryRunner's public type). */
interface PostgresQueryRunnerInternals {
  databaseConnection: unknown;
  transactionDepth: number;
  isTransactionActive: boolean;
  isReleased: boolean;
}

/** node-postgres' result, as TypeORM reads it: rows, rowCount and the command tag. */
interface PgLikeResult {
  rows: unknown[];
  rowCount: number;
  command: string;
}

// TypeORM wraps a driver's error in a QueryFailedError; the engines read PostgreSQL's own.
const driverError = (error: unknown): unknown => (error as { driverError?: unknown })?.driverError ?? error;

const managers = new WeakMap<Tx, EntityManager>();

// TypeORM may nest (SAVEPOINT typeorm_N at depth >= 1) but not end the outermost transaction.
function refuseOuterEnd(runner: QueryRunner & PostgresQueryRunnerInternals): void {
  const commit = runner.commitTransaction.bind(runner);
  const rollback = runner.rollbackTransaction.bind(runner);
  const guard = (what: string) => {
    if (runner.transactionDepth <= 1) throw new NestedTransactionError(what);
  };
  runner.commitTransaction = async () => {
    guard('COMMIT');
    await commit();
  };
  runner.rollbackTransaction = async () => {
    guard('ROLLBACK');
    await rollback();
  };
}

/**
 * TypeORM's EntityManager on Surety's transaction `tx` (the idempotent handler's): repositories,
 * `save()`, the query builder, all run in the same transaction as the Idempotency-Key, a published
 * event and an inbox record. `save()` sees a transaction already active and opens none;
 * `manager.transaction()` nests as a SAVEPOINT; a COMMIT or ROLLBACK of the outer transaction through
 * TypeORM throws NestedTransactionError (`SURETY_DB_NESTED_TRANSACTION`) and sends nothing.
 * `dataSource` gives the entity metadata and the driver (it must be a PostgreSQL one); its pool is
 * not used. One manager per Tx. On a Tx of {@link typeormSql} or {@link typeormTx} (TypeORM owns
 * the transaction) it is TypeORM's own transactional manager.
 * @example
 * const orders = typeormOf(dataSource, txOf(req)).getRepository(Order);
 * await orders.save(orders.create({ note }));
 */
export function typeormOf(dataSource: DataSource, tx: Tx): EntityManager {
  // A transaction TypeORM opened (typeormSql, typeormTx): its own transactional manager.
  if (tx.driver.kind === 'driver' && tx.driver.name === 'typeorm') return tx.driver.client as EntityManager;
  const known = managers.get(tx);
  if (known) return known;
  if (dataSource.options.type !== 'postgres') {
    throw new TypeError(`typeormOf: a PostgreSQL DataSource is needed, not ${dataSource.options.type}`);
  }
  const runner = dataSource.createQueryRunner() as QueryRunner & PostgresQueryRunnerInternals;
  // What PostgresQueryRunner calls for every statement (`connect()` returns it once set).
  runner.databaseConnection = {
    async query(text: string, params?: unknown[]): Promise<PgLikeResult> {
      const result = await tx.query(text, params);
      return { rows: result.rows, rowCount: result.rowCount, command: result.command };
    },
    on() {},
    removeListener() {},
  };
  runner.isTransactionActive = true;
  runner.transactionDepth = 1;
  refuseOuterEnd(runner);
  // The connection is Surety's: releasing the runner only retires it.
  runner.release = async () => {
    runner.isReleased = true;
  };
  managers.set(tx, runner.manager);
  return runner.manager;
}

async function run<R>(
  runner: QueryRunner,
  text: string,
  params: readonly unknown[] | undefined,
  options: QueryOptions | undefined,
): Promise<QueryResult<R>> {
  if (options?.rowMode === 'array') {
    throw new TypeError('rowMode "array" is not available over TypeORM: its raw queries return objects');
  }
  try {
    const result = await runner.query(text, params as unknown[] | undefined, true);
    const rows = (result.records ?? []) as R[];
    // TypeORM's structured result keeps no command tag: the statement's verb stands in for it.
    const command = (/^\s*(\w+)/.exec(text)?.[1] ?? '').toUpperCase();
    return { rows, rowCount: result.affected ?? rows.length, command, fields: [] };
  } catch (error) {
    throw driverError(error);
  }
}

function outerOf(runner: QueryRunner): OuterTransaction {
  return {
    name: 'typeorm',
    client: runner.manager,
    query: (statement, params, options) =>
      run(runner, typeof statement === 'string' ? statement : statement.text, params, options),
    // TypeORM's own nesting (SAVEPOINT typeorm_N), so that it keeps counting right.
    async savepoint(fn) {
      await runner.startTransaction();
      try {
        const result = await fn(outerOf(runner));
        await runner.commitTransaction();
        return result;
      } catch (error) {
        await runner.rollbackTransaction().catch(() => {});
        throw error;
      }
    },
  };
}

/**
 * Surety's view of a transaction TypeORM opened (`dataSource.transaction(manager => …)`, or a
 * QueryRunner after `startTransaction()`): pass it to `engine.using(joined)`, `webhooks.publish(joined, …)`
 * or `inbox.receive(joined, …)`, and they commit with TypeORM's transaction. The engine's claim runs in
 * a SAVEPOINT (TypeORM's). Call `joined.committed()` after the transaction commits to run the
 * after-commit wake-ups (or use {@link typeormTransaction}, which does).
 * @example
 * await dataSource.transaction(async (manager) => {
 *   const joined = typeormTx(manager);
 *   await manager.save(order);
 *   await webhooks.publish(joined, { tenant, type: 'order.created', data: order });
 * });
 */
export function typeormTx(from: EntityManager | QueryRunner): JoinedTransaction {
  const runner = 'startTransaction' in from ? (from as QueryRunner) : (from as EntityManager).queryRunner;
  if (!runner?.isTransactionActive) {
    throw new TransactionOwnedError('typeormTx: no TypeORM transaction is active on this manager');
  }
  return joinTransaction(outerOf(runner));
}

/**
 * `dataSource.transaction()` with Surety joined to it: `fn` gets TypeORM's transactional
 * EntityManager and Surety's view of the transaction; the after-commit wake-ups run once TypeORM
 * has committed.
 * @example
 * const outcome = await typeormTransaction(dataSource, (manager, joined) =>
 *   engine.using(joined).execute(request, async () => {
 *     await manager.save(Order, { note });
 *     return { status: 201, headers: {}, body: '{}' };
 *   }),
 * );
 */
export async function typeormTransaction<T>(
  dataSource: DataSource,
  fn: (manager: EntityManager, joined: JoinedTransaction) => Promise<T>,
): Promise<T> {
  let joined: JoinedTransaction | undefined;
  const result = await dataSource.transaction((manager) => {
    joined = typeormTx(manager);
    return fn(manager, joined);
  });
  joined?.committed();
  return result;
}

const connectionOf = (runner: QueryRunner | DataSource): DriverConnection => ({
  query: (text, params, options) =>
    'createQueryRunner' in runner
      ? (async () => {
          // Outside a transaction: one statement on a runner of its own, released at once.
          const own = runner.createQueryRunner();
          try {
            return await run(own, text, params, options);
          } finally {
            await own.release();
          }
        })()
      : run(runner, text, params, options),
});

/**
 * Surety's `Sql` over a TypeORM DataSource: each Surety transaction is one of TypeORM's
 * (`dataSource.transaction`), on its pool, with its subscribers and logging; the handler writes
 * through TypeORM's transactional EntityManager (`typeormOf(dataSource, tx)`). BEGIN, the
 * claim, the record and COMMIT are round trips of their own.
 * @example
 * const engine = createIdempotency({ sql: typeormSql(dataSource) });
 * await engine.execute(request, async (tx) => {
 *   await typeormOf(dataSource, tx).save(Order, { note });
 *   return { status: 201, headers: {}, body: '{}' };
 * });
 */
export function typeormSql(dataSource: DataSource): Sql {
  return createDriverSql<EntityManager>({
    name: 'typeorm',
    connection: connectionOf(dataSource),
    transaction: (fn) => dataSource.transaction((manager) => fn(connectionOf(manager.queryRunner!), manager)),
  });
}
