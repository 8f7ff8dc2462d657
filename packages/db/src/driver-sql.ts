import { runAfterCommit } from './after-commit.js';
import { classify } from './errors.js';
import { firstStatements, openTransaction } from './transaction.js';
import type { QueryOptions, QueryResult, Sql, Statement, Tx } from './types.js';

/** One connection of another driver (an ORM's transaction, or its pool), as Surety calls it. */
export interface DriverConnection {
  /** Runs one statement with bound parameters; `rowMode: 'array'` asks for rows as arrays. */
  query(text: string, params: readonly unknown[], options: QueryOptions): Promise<QueryResult<unknown>>;
  /**
   * Runs a script of several statements without parameters (migrations): the simple protocol.
   * @default query(script, []), which is enough only for a driver that sends a statement without
   * parameters by the simple protocol
   */
  exec?(script: string): Promise<unknown>;
}

export interface DriverSqlOptions<C> {
  /** The driver's name, shown as `tx.driver.name` (`'kysely'`, `'knex'`, `'postgres.js'`, …). */
  name: string;
  /** Statements outside a transaction, on the driver's own pool. */
  connection: DriverConnection;
  /**
   * Opens a transaction the driver's way (`db.transaction().execute`, `sql.begin`, …), runs `fn`
   * in it, commits when `fn` resolves and rolls back when it throws. Resolves after COMMIT.
   * `client` is the driver's own transaction object, handed to the application as
   * `tx.driver.client`.
   */
  transaction<T>(fn: (connection: DriverConnection, client: C) => Promise<T>): Promise<T>;
  /** @default refused: LISTEN needs a connection of its own; give workers `createPgSql` / `openSql`. */
  listen?: Sql['listen'];
  /** @default `select pg_notify($1, $2)` on `connection` */
  notify?: Sql['notify'];
  /** @default nothing: the driver's pool is the application's to close */
  close?: () => Promise<void>;
}

const run = async <R>(
  connection: DriverConnection,
  statement: string | Statement,
  params: readonly unknown[] | undefined,
  options: QueryOptions | undefined,
): Promise<QueryResult<R>> => {
  try {
    // A statement's name is Surety's plan-cache hint for node-postgres; other drivers parse
    // each statement again (docs/orm.md says what that costs).
    const text = typeof statement === 'string' ? statement : statement.text;
    return (await connection.query(text, params ?? [], options ?? {})) as QueryResult<R>;
  } catch (error) {
    throw classify(error);
  }
};

/**
 * A Surety `Sql` whose transactions are another driver's: the ORM opens, commits and rolls back
 * each one on its own pool, and Surety's engine, `publish()` and the inbox run inside it. What the
 * adapters of `@surety/db/kysely`, `/drizzle`, `/knex`, … are built on. BEGIN and the first
 * statement, and the `atCommit` statement and COMMIT, are separate round trips here: the driver
 * sends BEGIN and COMMIT itself.
 * @example
 * const sql = createDriverSql({
 *   name: 'mydriver',
 *   connection: { query: (text, params) => pool.run(text, params) },
 *   transaction: (fn) => pool.begin((trx) => fn({ query: (text, params) => trx.run(text, params) }, trx)),
 * });
 */
export function createDriverSql<C>(options: DriverSqlOptions<C>): Sql {
  const { name, connection } = options;
  return {
    kind: 'driver',
    query: (statement, params, queryOptions) => run(connection, statement, params, queryOptions),
    // Typed by `Sql['transaction']` (types.ts).
    async transaction(fn, txOptions) {
      let committed: readonly (() => void)[] = [];
      try {
        const result = await options.transaction(async (inner, client) => {
          const exec = (script: string) => (inner.exec ? inner.exec(script) : inner.query(script, [], {}));
          const open = openTransaction({
            query: (statement, params, queryOptions) => run(inner, statement, params, queryOptions),
            exec,
            driver: { kind: 'driver', name, client },
          });
          committed = open.committed;
          const first = txOptions?.first;
          let firstResult: QueryResult<Record<string, unknown>> | undefined;
          if (typeof first === 'string')
            firstResult = await run<Record<string, unknown>>(inner, first, [], {});
          else if (first)
            for (const s of firstStatements(first)) firstResult = await open.tx.query(s.statement, s.params);
          const value = await fn(open.tx, firstResult);
          const last = open.atCommitStatement();
          if (typeof last === 'string') await exec(last);
          else if (last !== undefined) await run(inner, last.statement, last.params, {});
          return value;
        });
        runAfterCommit(committed);
        return result;
      } catch (error) {
        throw classify(error);
      }
    },
    listen:
      options.listen ??
      (async () => {
        throw new Error(
          `Sql.listen() is not available over ${name}: LISTEN needs a connection of its own; give workers createPgSql() or openSql()`,
        );
      }),
    notify:
      options.notify ??
      (async (channel, payload = '') => {
        // `select 1 from`: pg_notify returns void, which Prisma's raw queries cannot read back (P2010).
        await run(connection, 'select 1 from pg_notify($1, $2)', [channel, payload], undefined);
      }),
    close: options.close ?? (async () => {}),
  };
}

/**
 * A Surety `Tx` over a transaction another driver opened and commits itself (the application's own
 * `db.transaction(…)`), for `publish()` of `@surety/webhooks` and `inbox.receive()` of
 * `@surety/webhook-verify`: their rows commit or roll back with that transaction. Surety does not
 * see this COMMIT, so `atCommit` is refused (the idempotency engine takes a `Sql`: use
 * `createDriverSql`), and `afterCommit` callbacks never run (a published event is then picked up
 * at the workers' next poll instead of at once).
 * @example
 * await pool.begin(async (trx) => webhooks.publish(driverTx({ name: 'mydriver', client: trx, connection: wrap(trx) }), event));
 */
export function driverTx<C>(options: { name: string; client: C; connection: DriverConnection }): Tx {
  const { name, client, connection } = options;
  const { tx } = openTransaction({
    query: (statement, params, queryOptions) => run(connection, statement, params, queryOptions),
    exec: (script) => (connection.exec ? connection.exec(script) : connection.query(script, [], {})),
    driver: { kind: 'driver', name, client },
  });
  return {
    ...tx,
    atCommit() {
      throw new Error(
        `atCommit needs the COMMIT to be Surety's; this ${name} transaction commits by itself: give the idempotency engine createDriverSql() (docs/orm.md)`,
      );
    },
  };
}
