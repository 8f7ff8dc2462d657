import type { DrizzleConfig } from 'drizzle-orm';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import type pg from 'pg';
import { guarded, ownDrizzle, type TxDrizzle } from './drizzle-shared.js';
import { savepoints } from './savepoints.js';
import type { Tx } from './types.js';

export { drizzleSql, drizzleTx, type TxDrizzle } from './drizzle-shared.js';

// @surety/db/drizzle — both directions with Drizzle 0.45 on node-postgres (docs/orm.md#drizzle).
// It loads drizzle-orm and its node-postgres driver only: an application on PostgreSQL installs no
// PGlite. The embedded database's Drizzle is @surety/db/drizzle-pglite. Drizzle maps columns by
// position (rows as arrays), so it is bound to the transaction's own connection (tx.driver), not to
// tx.query's objects: a self-join's two `name` columns both survive, and Drizzle's type parsers
// (timestamps as text) keep working.
// 1. Surety owns the transaction: `drizzleOf(tx)`; Drizzle's `.transaction()` is a SAVEPOINT.
// 2. Drizzle owns it: `drizzleSql(db)`, and `drizzleTx(tx)` for a transaction the app opened.

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

/**
 * Drizzle bound to the handler's transaction (node-postgres; on PGlite, @surety/db/drizzle-pglite):
 * every query runs on its connection, so it commits with the Idempotency-Key record, the outbox
 * event and the inbox row, or not at all. Its
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
  const own = ownDrizzle<TSchema>(tx);
  if (own) return own;
  if (driver.kind === 'pglite') {
    throw new TypeError(
      '@surety/db/drizzle: this transaction is on the embedded database (PGlite): import drizzleOf from @surety/db/drizzle-pglite',
    );
  }
  throw new TypeError(
    `@surety/db/drizzle: drizzleOf needs a transaction of node-postgres or drizzleSql(), not of ${driver.name}`,
  );
}
