import { createRequire } from 'node:module';
import knexFactory, { type Knex } from 'knex';
import type pg from 'pg';
import { createDriverSql, type DriverConnection, driverTx } from './driver-sql.js';
import { NestedTransactionError } from './errors.js';
import { run as runPg } from './pg.js';
import { type Savepoints, savepoints } from './savepoints.js';
import { endsTransaction } from './transaction.js';
import type { Sql, Tx } from './types.js';

// @surety/db/knex — both directions with knex 3 (docs/orm.md#knex).
// 1. Surety owns the transaction: `knexOf(tx)` is a Knex whose one connection is `tx`: a client of
//    knex's own PostgreSQL dialect (its compiler, bindings and result handling, which switches on
//    `command`), whose `_query` runs on `tx.query`. Its `.transaction()` is a SAVEPOINT.
// 2. Knex owns it: `knexSql(knex)`, and `knexTx(trx)` for a transaction the application opened.

const NAME = 'knex';

/** The part of knex's PostgreSQL client this adapter builds on (knex publishes no dialect types). */
interface KnexPgClient {
  config: Knex.Config;
}
interface KnexQueryObject {
  sql: string;
  bindings?: readonly unknown[];
  options?: { rowMode?: string };
  response?: unknown;
}
// knex has no `exports` map; its dialects are subclassed this way by third-party dialects too.
const ClientPG = createRequire(import.meta.url)('knex/lib/dialects/postgres/index.js') as new (
  config: Knex.Config,
) => KnexPgClient;

const kState = Symbol('surety.db.knex.state');
/** What a bound knex runs on: the transaction, its savepoint stack, the connection object knex tags. */
interface TxState {
  tx: Tx;
  levels: Savepoints;
  connection: object;
}
type TxClientConfig = Knex.Config & { [kState]: TxState };

/**
 * knex's PostgreSQL dialect on one Surety transaction: no pool, no driver of its own. Its state
 * lives in the config: a knex transaction's client is a new object of this class that shares only
 * the config (knex's makeTxClient), never a field set by this constructor.
 */
class TxClient extends ClientPG {
  get state(): TxState {
    return (this.config as TxClientConfig)[kState];
  }
  acquireConnection(): Promise<object> {
    return Promise.resolve(this.state.connection);
  }
  releaseConnection(): Promise<void> {
    return Promise.resolve();
  }
  // knex's transactions send BEGIN; / COMMIT; / ROLLBACK as text (nested ones, SAVEPOINT): the
  // outermost becomes a savepoint of Surety's transaction.
  async _query(_connection: object, obj: KnexQueryObject): Promise<KnexQueryObject> {
    const { tx, levels } = this.state;
    const text = levels.translate(obj.sql);
    if (text === obj.sql && endsTransaction(text)) throw new NestedTransactionError(text);
    const rowMode = obj.options?.rowMode === 'array' ? { rowMode: 'array' as const } : undefined;
    // Surety's result has what knex's processResponse reads: command, rows, rowCount, fields.
    obj.response = await tx.query(text, obj.bindings ?? [], rowMode);
    return obj;
  }
}

export interface KnexOfOptions {
  /** knex options that shape queries (`wrapIdentifier`, `postProcessResponse`, `useNullAsDefault`, …). */
  config?: Omit<Knex.Config, 'client' | 'connection' | 'pool'>;
}

/**
 * A Knex bound to the handler's transaction: every query it builds runs on `tx`, so it commits
 * with the Idempotency-Key record, the outbox event and the inbox row, or not at all. Its
 * `.transaction()` is a SAVEPOINT. Given a `tx` of `knexSql(knex)`, returns that knex transaction.
 * @example
 * await idempotency.execute(request, async (tx) => {
 *   await knexOf(tx)('payments').insert({ id, cents });
 *   return { status: 201, headers: {}, body: JSON.stringify({ id }) };
 * });
 */
export function knexOf(tx: Tx, options: KnexOfOptions = {}): Knex {
  if (tx.driver.kind === 'driver' && tx.driver.name === NAME) return tx.driver.client as Knex.Transaction;
  const state: TxState = { tx, levels: savepoints('surety_knex'), connection: {} };
  const config: TxClientConfig = { ...options.config, client: TxClient as never, [kState]: state };
  return knexFactory(config);
}

/** A knex transaction's (or the pool's) raw node-postgres connection, as Surety runs statements. */
function connectionOf(client: Knex.Client): DriverConnection {
  const on = async <T>(use: (connection: pg.PoolClient) => Promise<T>): Promise<T> => {
    const connection = (await client.acquireConnection()) as pg.PoolClient;
    try {
      return await use(connection);
    } finally {
      await client.releaseConnection(connection);
    }
  };
  return {
    query: (text, params, options) => on((c) => runPg(c, text, params, options)),
    // Without values node-postgres uses the simple protocol: a script (migrations) runs whole.
    exec: (script) => on((c) => c.query(script)),
  };
}

/**
 * A Surety `Sql` whose transactions are knex's own (`knex.transaction()`), on its pool: the
 * idempotency engine, `publish()` and the inbox run inside them, and a handler gets the knex
 * transaction with `knexOf(tx)`. Surety's statements go straight to the transaction's connection
 * (knex's `raw` takes `?` bindings, not `$1`), so knex's query events do not see them. BEGIN and
 * COMMIT are knex's: the key's claim and completion are round trips of their own (docs/orm.md).
 * @example
 * const idempotency = createIdempotency({ sql: knexSql(knex) });
 */
export function knexSql(knex: Knex): Sql {
  return createDriverSql<Knex.Transaction>({
    name: NAME,
    connection: connectionOf(knex.client),
    transaction: (fn) => knex.transaction((trx) => fn(connectionOf(trx.client), trx)),
  });
}

/**
 * A Surety `Tx` over a knex transaction the application opened, for `publish()` and
 * `inbox.receive()` (see `driverTx` in `@surety/db`: no `atCommit`, no `afterCommit`).
 * @example
 * await knex.transaction(async (trx) => {
 *   await trx('orders').update({ status: 'shipped' }).where({ id });
 *   await webhooks.publish(knexTx(trx), { tenant, type: 'order.shipped', data });
 * });
 */
export function knexTx(trx: Knex.Transaction): Tx {
  return driverTx({ name: NAME, client: trx, connection: connectionOf(trx.client) });
}
