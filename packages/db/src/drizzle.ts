import { createTableRelationsHelpers, type DrizzleConfig, extractTablesRelationalConfig } from 'drizzle-orm';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { PgDatabase, PgDialect, type PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { PgliteSession } from 'drizzle-orm/pglite/session';
import type pg from 'pg';
import { createDriverSql, type DriverConnection, driverTx } from './driver-sql.js';
import { NestedTransactionError } from './errors.js';
import { run as runPg } from './pg.js';
import { type PgliteQueryable, run as runPglite } from './pglite.js';
import { type Savepoints, savepoints } from './savepoints.js';
import { endsTransaction } from './transaction.js';
import type { Sql, Tx } from './types.js';

// @surety/db/drizzle — both directions with Drizzle 0.45, on node-postgres and on PGlite
// (docs/orm.md#drizzle). Drizzle maps columns by position (rows as arrays), so it is bound to the
// transaction's own connection (tx.driver), not to tx.query's objects: a self-join's two `name`
// columns both survive, and Drizzle's type parsers (timestamps as text) keep working.
// 1. Surety owns the transaction: `drizzleOf(tx)`; Drizzle's `.transaction()` is a SAVEPOINT.
// 2. Drizzle owns it: `drizzleSql(db)`, and `drizzleTx(tx)` for a transaction the app opened.

const NAME = 'drizzle';

/** What `drizzleOf` returns: Drizzle's PostgreSQL database, on node-postgres or PGlite. */
export type TxDrizzle<TSchema extends Record<string, unknown> = Record<string, never>> = PgDatabase<
  PgQueryResultHKT,
  TSchema
>;

/** Transaction control Drizzle sends as text becomes a savepoint; anything else passes. */
function guarded(levels: Savepoints, text: string): string {
  const translated = levels.translate(text);
  if (translated === text && endsTransaction(text)) throw new NestedTransactionError(text);
  return translated;
}

/** A node-postgres client for Drizzle: the transaction's own, its BEGIN / COMMIT made savepoints. */
class TxPgClient {
  readonly #client: pg.PoolClient;
  readonly #levels = savepoints('surety_drizzle');
  constructor(client: pg.PoolClient) {
    this.#client = client;
  }
  query(config: string | pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult> {
    const text = typeof config === 'string' ? config : config.text;
    const sent = guarded(this.#levels, text);
    if (sent === text) return this.#client.query(config as pg.QueryConfig, values);
    return this.#client.query(sent);
  }
}

/** PGlite's transaction for Drizzle, with a `transaction()` that opens a savepoint. */
interface TxPgliteClient extends PgliteQueryable {
  transaction<T>(fn: (tx: TxPgliteClient) => Promise<T>): Promise<T>;
}

function txPgliteClient(inner: PgliteQueryable): TxPgliteClient {
  const levels = savepoints('surety_drizzle');
  const client: TxPgliteClient = {
    query: (text, params, options) => inner.query(guarded(levels, text), params, options),
    exec: (text) => inner.exec(guarded(levels, text)),
    async transaction(fn) {
      await inner.query(levels.begin());
      try {
        const result = await fn(client);
        await inner.query(levels.commit());
        return result;
      } catch (error) {
        await inner.query(levels.rollback());
        throw error;
      }
    },
  };
  return client;
}

/** Drizzle over a PGlite connection, assembled as drizzle-orm/pglite does, without importing PGlite. */
function drizzlePglite<TSchema extends Record<string, unknown>>(
  client: TxPgliteClient,
  config: DrizzleConfig<TSchema>,
): TxDrizzle<TSchema> {
  const dialect = new PgDialect({ casing: config.casing });
  const tables = config.schema && extractTablesRelationalConfig(config.schema, createTableRelationsHelpers);
  const schema = config.schema &&
    tables && { fullSchema: config.schema, schema: tables.tables, tableNamesMap: tables.tableNamesMap };
  const logger = config.logger === true ? undefined : config.logger || undefined;
  const session = new PgliteSession(client as never, dialect, schema, { logger, cache: config.cache });
  const db = new PgDatabase(dialect, session, schema as never) as unknown as TxDrizzle<TSchema>;
  return Object.assign(db, { $client: client });
}

/**
 * Drizzle bound to the handler's transaction: every query runs on its connection, so it commits
 * with the Idempotency-Key record, the outbox event and the inbox row, or not at all. Its
 * `.transaction()` is a SAVEPOINT. `config` is Drizzle's own (`schema` for the relational
 * queries, `casing`, `logger`). Given a `tx` of `drizzleSql(db)`, returns that Drizzle transaction.
 * @example
 * await idempotency.execute(request, async (tx) => {
 *   const db = drizzleOf(tx, { schema });
 *   await db.insert(payments).values({ id, cents });
 *   return { status: 201, headers: {}, body: JSON.stringify({ id }) };
 * });
 */
export function drizzleOf<TSchema extends Record<string, unknown> = Record<string, never>>(
  tx: Tx,
  config: DrizzleConfig<TSchema> = {},
): TxDrizzle<TSchema> {
  const { driver } = tx;
  if (driver.kind === 'pg') {
    return drizzleNodePg({ ...config, client: new TxPgClient(driver.client) as unknown as pg.PoolClient });
  }
  if (driver.kind === 'pglite') return drizzlePglite(txPgliteClient(driver.client), config);
  if (driver.name === NAME) return driver.client as TxDrizzle<TSchema>;
  throw new TypeError(
    `@surety/db/drizzle: drizzleOf needs a transaction of node-postgres, PGlite or drizzleSql(), not of ${driver.name}`,
  );
}

/** The connection under a Drizzle database or transaction: a node-postgres one or PGlite's. */
function connectionOf(client: unknown): DriverConnection {
  const pglite = typeof (client as { exec?: unknown }).exec === 'function';
  if (pglite) {
    const c = client as PgliteQueryable;
    // PGlite's query is one statement (extended protocol): scripts (migrations) go through exec.
    return {
      query: (text, params, options) => runPglite(c, text, params, options),
      exec: (script) => c.exec(script),
    };
  }
  const c = client as pg.Pool | pg.PoolClient;
  // Without values node-postgres uses the simple protocol: a script (migrations) runs whole.
  return {
    query: (text, params, options) => runPg(c, text, params, options),
    exec: (script) => c.query(script),
  };
}

/** Drizzle keeps the connection in its session: public on the database (`_.session`), `client` there. */
function clientOf(db: object): unknown {
  const client = (db as { _?: { session?: { client?: unknown } } })._?.session?.client;
  if (client === undefined) {
    throw new TypeError('@surety/db/drizzle: this is not a node-postgres or PGlite Drizzle database');
  }
  return client;
}

/**
 * A Surety `Sql` whose transactions are Drizzle's own (`db.transaction()`), on a node-postgres or
 * PGlite Drizzle database: the idempotency engine, `publish()` and the inbox run inside them, and a
 * handler gets the Drizzle transaction with `drizzleOf(tx)`. BEGIN and COMMIT are Drizzle's, so the
 * key's claim and completion are round trips of their own (docs/orm.md).
 * @example
 * const idempotency = createIdempotency({ sql: drizzleSql(db) });
 */
export function drizzleSql<TSchema extends Record<string, unknown>>(
  db: PgDatabase<PgQueryResultHKT, TSchema>,
): Sql {
  return createDriverSql<unknown>({
    name: NAME,
    connection: connectionOf(clientOf(db)),
    transaction: (fn) => db.transaction((dtx) => fn(connectionOf(clientOf(dtx)), dtx)),
  });
}

/**
 * A Surety `Tx` over a Drizzle transaction the application opened, for `publish()` and
 * `inbox.receive()` (see `driverTx` in `@surety/db`: no `atCommit`, no `afterCommit`).
 * @example
 * await db.transaction(async (trx) => {
 *   await trx.update(orders).set({ status: 'shipped' }).where(eq(orders.id, id));
 *   await webhooks.publish(drizzleTx(trx), { tenant, type: 'order.shipped', data });
 * });
 */
export function drizzleTx<TSchema extends Record<string, unknown>>(
  trx: PgDatabase<PgQueryResultHKT, TSchema>,
): Tx {
  return driverTx({ name: NAME, client: trx, connection: connectionOf(clientOf(trx)) });
}
