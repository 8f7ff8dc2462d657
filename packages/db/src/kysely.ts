import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  Kysely,
  type KyselyPlugin,
  type QueryResult as KyselyResult,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type Transaction,
  type TransactionSettings,
} from 'kysely';
import { createDriverSql, type DriverConnection, driverTx } from './driver-sql.js';
import { NestedTransactionError } from './errors.js';
import { savepoints } from './savepoints.js';
import type { QueryResult, Sql, Tx } from './types.js';

// @surety/db/kysely — both directions with Kysely 0.28 (docs/orm.md#kysely).
// 1. Surety owns the transaction: `kyselyOf<DB>(tx)` is a typed Kysely bound to the handler's
//    transaction (a dialect whose one connection is `tx`); its `.transaction()` is a SAVEPOINT.
// 2. Kysely owns it: `kyselySql(db)` is a Surety `Sql` whose transactions are `db.transaction()`,
//    `kyselyTx(trx)` a `Tx` over a Kysely transaction the application opened itself.

const NAME = 'kysely';

const WRITES = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/** Surety's result as Kysely's PostgresDriver reports one. */
const toKysely = <R>(result: QueryResult<R>): KyselyResult<R> => ({
  rows: result.rows,
  ...(WRITES.has(result.command) && { numAffectedRows: BigInt(result.rowCount) }),
});

class TxConnection implements DatabaseConnection {
  readonly levels = savepoints('surety_kysely');
  constructor(readonly tx: Tx) {}
  async executeQuery<R>(compiled: CompiledQuery): Promise<KyselyResult<R>> {
    return toKysely(await this.tx.query<R>(compiled.sql, compiled.parameters));
  }
  // biome-ignore lint/correctness/useYield: refuses before the first chunk
  async *streamQuery<R>(): AsyncIterableIterator<KyselyResult<R>> {
    throw new Error('@surety/db/kysely: streaming (.stream()) is not available on a Surety transaction');
  }
}

class TxDriver implements Driver {
  readonly #connection: TxConnection;
  constructor(tx: Tx) {
    this.#connection = new TxConnection(tx);
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.#connection;
  }
  // Kysely's `.transaction()` on the bound instance: a level of savepoint inside Surety's
  // transaction, never a BEGIN that PostgreSQL would ignore and a COMMIT that would end Surety's.
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    if (settings.isolationLevel || settings.accessMode) {
      throw new NestedTransactionError(
        `set transaction ${settings.isolationLevel ?? ''} ${settings.accessMode ?? ''}`,
        'an isolation level or access mode cannot change inside the transaction Surety opened',
      );
    }
    await this.#run(connection, (c) => c.levels.begin());
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.#run(connection, (c) => c.levels.commit());
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await this.#run(connection, (c) => c.levels.rollback());
  }
  // Kysely's own savepoints (a controlled transaction's .savepoint('name')), as PostgreSQL's.
  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await this.#run(connection, () => `savepoint ${ident(name)}`);
  }
  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await this.#run(connection, () => `rollback to savepoint ${ident(name)}`);
  }
  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await this.#run(connection, () => `release savepoint ${ident(name)}`);
  }
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
  async #run(connection: DatabaseConnection, statement: (c: TxConnection) => string): Promise<void> {
    const c = connection as TxConnection;
    await c.tx.query(statement(c));
  }
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

export interface KyselyOfOptions {
  /** Kysely plugins for the bound instance (CamelCasePlugin, …), as in `new Kysely({ plugins })`. */
  plugins?: KyselyPlugin[];
}

/**
 * A typed Kysely bound to the handler's transaction: every query it builds runs on `tx`, so it
 * commits with the Idempotency-Key record, the outbox event and the inbox row, or not at all.
 * Its `.transaction()` is a SAVEPOINT. Given a `tx` of `kyselySql(db)`, returns that Kysely
 * transaction itself.
 * @example
 * await idempotency.execute(request, async (tx) => {
 *   const db = kyselyOf<Database>(tx);
 *   await db.insertInto('payments').values({ id, cents }).execute();
 *   return { status: 201, headers: {}, body: JSON.stringify({ id }) };
 * });
 */
export function kyselyOf<DB>(tx: Tx, options: KyselyOfOptions = {}): Kysely<DB> {
  if (tx.driver.kind === 'driver' && tx.driver.name === NAME) return tx.driver.client as Transaction<DB>;
  const driver = new TxDriver(tx);
  const dialect: Dialect = {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => driver,
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  };
  return new Kysely<DB>({ dialect, plugins: options.plugins ?? [] });
}

/** A Kysely instance or transaction as the connection Surety runs its statements on. */
function connectionOf<DB>(db: Kysely<DB>): DriverConnection {
  return {
    async query(text, params, options) {
      if (options.rowMode === 'array') {
        throw new Error(
          "@surety/db/kysely: rowMode 'array' is not available over Kysely's driver (objects only)",
        );
      }
      const r = await db.executeQuery(CompiledQuery.raw(text, [...params]));
      const rows = r.rows as unknown[];
      // Kysely's drivers report the affected rows of a write, not the command tag nor the columns.
      const rowCount = r.numAffectedRows === undefined ? rows.length : Number(r.numAffectedRows);
      return { rows, rowCount, command: '', fields: [] };
    },
    // Kysely's PostgreSQL driver sends a statement without parameters by the simple protocol: a
    // script (migrations) runs whole.
    exec: (script) => db.executeQuery(CompiledQuery.raw(script, [])),
  };
}

/**
 * A Surety `Sql` whose transactions are Kysely's own (`db.transaction().execute`), on Kysely's
 * pool, with its plugins and logging: the idempotency engine, `publish()` and the inbox run inside
 * them, and a handler gets the typed Kysely transaction with `kyselyOf<DB>(tx)`. BEGIN and COMMIT
 * are Kysely's, so the key's claim and completion are round trips of their own (docs/orm.md).
 * @example
 * const idempotency = createIdempotency({ sql: kyselySql(db) });
 */
export function kyselySql<DB>(db: Kysely<DB>): Sql {
  return createDriverSql<Transaction<DB>>({
    name: NAME,
    connection: connectionOf(db),
    transaction: (fn) => db.transaction().execute((trx) => fn(connectionOf(trx), trx)),
  });
}

/**
 * A Surety `Tx` over a Kysely transaction the application opened, for `publish()` and
 * `inbox.receive()` (see `driverTx` in `@surety/db`: no `atCommit`, no `afterCommit`).
 * @example
 * await db.transaction().execute(async (trx) => {
 *   await trx.updateTable('orders').set({ status: 'shipped' }).where('id', '=', id).execute();
 *   await webhooks.publish(kyselyTx(trx), { tenant, type: 'order.shipped', data });
 * });
 */
export function kyselyTx<DB>(trx: Transaction<DB>): Tx {
  return driverTx({ name: NAME, client: trx, connection: connectionOf(trx) });
}
