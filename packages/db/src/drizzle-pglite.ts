import { createTableRelationsHelpers, type DrizzleConfig, extractTablesRelationalConfig } from 'drizzle-orm';
import { PgDatabase, PgDialect } from 'drizzle-orm/pg-core';
import { PgliteSession } from 'drizzle-orm/pglite/session';
import { drizzleOf as drizzleOfPg } from './drizzle.js';
import { guarded, type TxDrizzle } from './drizzle-shared.js';
import type { PgliteQueryable } from './pglite.js';
import { savepoints } from './savepoints.js';
import type { Tx } from './types.js';

export { drizzleSql, drizzleTx, type TxDrizzle } from './drizzle-shared.js';

// @surety/db/drizzle-pglite — @surety/db/drizzle for an application that also runs on the embedded
// database: `drizzleOf(tx)` on PGlite's transaction too. It loads drizzle-orm's PGlite session, which
// imports @electric-sql/pglite; that is why it is a subpath of its own (docs/orm.md#drizzle).

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

/** Drizzle over PGlite's transaction, assembled as drizzle-orm/pglite's driver does over an instance. */
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
 * `drizzleOf` of `@surety/db/drizzle`, on the embedded database's transactions as well: Drizzle on
 * the transaction's own PGlite connection (on node-postgres and `drizzleSql`, the same as there).
 * Its `.transaction()` is a SAVEPOINT.
 * @example
 * await idempotency.execute(request, async (tx) => {
 *   await drizzleOf(tx, { schema }).insert(payments).values({ id, cents });
 *   return { status: 201, headers: {}, body: JSON.stringify({ id }) };
 * });
 */
export function drizzleOf<TSchema extends Record<string, unknown> = Record<string, never>>(
  tx: Tx,
  config: DrizzleConfig<TSchema> = {},
): TxDrizzle<TSchema> {
  const { driver } = tx;
  if (driver.kind === 'pglite') return drizzlePglite(txPgliteClient(driver.client), config);
  return drizzleOfPg(tx, config);
}
