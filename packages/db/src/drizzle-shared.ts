import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import { createDriverSql, type DriverConnection, driverTx } from './driver-sql.js';
import { NestedTransactionError } from './errors.js';
import { run as runPg } from './pg.js';
import { type PgliteQueryable, run as runPglite } from './pglite.js';
import type { Savepoints } from './savepoints.js';
import { endsTransaction } from './transaction.js';
import type { Sql, Tx } from './types.js';

// What @surety/db/drizzle (node-postgres) and @surety/db/drizzle-pglite share: Drizzle owning the
// transaction (drizzleSql, drizzleTx) needs neither driver's module, only the connection Drizzle
// keeps in its session. Nothing here imports a driver (docs/orm.md#drizzle).

export const NAME = 'drizzle';

/** What `drizzleOf` returns: Drizzle's PostgreSQL database, on node-postgres or PGlite. */
export type TxDrizzle<TSchema extends Record<string, unknown> = Record<string, never>> = PgDatabase<
  PgQueryResultHKT,
  TSchema
>;

/** Transaction control Drizzle sends as text becomes a savepoint; anything else passes. */
export function guarded(levels: Savepoints, text: string): string {
  const translated = levels.translate(text);
  if (translated === text && endsTransaction(text)) throw new NestedTransactionError(text);
  return translated;
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

/** The Drizzle transaction behind a Tx of {@link drizzleSql}, or undefined for another Tx. */
export function ownDrizzle<TSchema extends Record<string, unknown>>(tx: Tx): TxDrizzle<TSchema> | undefined {
  return tx.driver.kind === 'driver' && tx.driver.name === NAME
    ? (tx.driver.client as TxDrizzle<TSchema>)
    : undefined;
}
