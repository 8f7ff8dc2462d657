import pg from 'pg';
import { runAfterCommit } from './after-commit.js';
import { clientFor } from './multi-host.js';
import { ownConnectionSettings } from './own-connection.js';
import { listenOn } from './pg-listen.js';
import { BEGIN, COMMIT, pipeline, type Step, UNNAMED_BEGIN, UNNAMED_COMMIT } from './pg-pipeline.js';
import { classifyPg, forPooler, type PoolerMode } from './pooler.js';
import { firstStatements, openTransaction } from './transaction.js';
import type { QueryOptions, QueryResult, Sql, Statement } from './types.js';

export interface PgSqlOptions {
  /** A `postgres://` URL. Ignored when `pool` is given. */
  connectionString?: string;
  /**
   * Bring your own pool; `close()` then leaves it open. Transactions run on it; LISTEN and NOTIFY
   * each get one connection of their own, opened with this pool's settings (`pool.options`), so a
   * pool built from host / user / database options listens and notifies as well as one built from
   * a URL.
   */
  pool?: pg.Pool;
  /**
   * Pool size.
   * @default 10
   */
  max?: number;
  /**
   * How long to wait for a connection before the query fails as unavailable.
   * @default 5000
   */
  connectionTimeoutMillis?: number;
  /** Shown in `pg_stat_activity.application_name`. @default "surety" */
  applicationName?: string;
  /** Called with errors of idle pooled connections (they are dropped from the pool either way). */
  onError?: (error: Error) => void;
  /**
   * `'transaction'` when the URL (or pool) goes through a transaction-mode pooler (PgBouncer before
   * 1.21 or without `max_prepared_statements`, Supavisor, RDS Proxy, Neon's pooled URL): statements
   * go out unnamed, still pipelined with BEGIN and COMMIT, and LISTEN needs `listenUrl`. Left at
   * `'none'` behind such a pooler, transactions fail with a PoolerMisconfiguredError (503) instead.
   * @default 'none'
   */
  pooler?: PoolerMode;
  /**
   * A direct (or session-mode) URL for LISTEN, which needs a session of its own. Without it, behind
   * a transaction pooler `listen()` is refused and the delivery workers poll.
   * @default the pool's own settings
   */
  listenUrl?: string;
}

type PgQueryable = pg.Pool | pg.PoolClient;

/** node-postgres' result as Surety's: the same rows, the count, the command tag's verb and the columns. */
function toResult<R>(result: pg.QueryResult): QueryResult<R> {
  return {
    rows: result.rows as R[],
    rowCount: result.rowCount ?? result.rows.length,
    command: result.command ?? '',
    fields: result.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })),
  };
}

/** Runs one statement on a pool or client; internal (the adapters use it), not exported by the index. */
export async function run<R>(
  target: PgQueryable,
  statement: string | Statement,
  params: readonly unknown[] | undefined,
  options?: QueryOptions,
): Promise<QueryResult<R>> {
  try {
    const values = params as unknown[] | undefined;
    const config: pg.QueryConfig =
      typeof statement === 'string'
        ? { text: statement, values }
        : { text: statement.text, name: statement.name, values };
    if (options?.rowMode === 'array') (config as pg.QueryArrayConfig).rowMode = 'array';
    return toResult<R>(await target.query(config));
  } catch (error) {
    throw classifyPg(error);
  }
}

/**
 * `Sql` over a node-postgres Pool.
 * @example
 * const sql = createPgSql({ connectionString: process.env.DATABASE_URL });
 * await sql.transaction(async (tx) => tx.query('insert into t values ($1)', [1]));
 */
export function createPgSql(options: PgSqlOptions = {}): Sql {
  const ownsPool = !options.pool;
  const mode: PoolerMode = options.pooler ?? 'none';
  if (mode !== 'none' && mode !== 'transaction') {
    throw new TypeError(`createPgSql: pooler must be "none" or "transaction", got ${JSON.stringify(mode)}`);
  }
  // Behind a transaction pooler nothing is named: the next transaction may run on another server
  // connection, which never parsed it (docs/decisions.md, issue 33).
  const exec = <R>(
    target: PgQueryable,
    statement: string | Statement,
    params?: readonly unknown[],
    o?: QueryOptions,
  ) => run<R>(target, forPooler(statement, mode), params, o);
  const step = (s: Step): Step =>
    mode === 'none' ? s : { statement: { text: s.statement.text }, params: s.params };
  const begin = mode === 'none' ? BEGIN : UNNAMED_BEGIN;
  const commitStep = mode === 'none' ? COMMIT : UNNAMED_COMMIT;
  // A multi-host URL: every connection finds the read-write primary (multi-host.ts).
  const own = clientFor({
    connectionString: options.connectionString,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 5000,
  });
  const pool =
    options.pool ??
    new pg.Pool({
      ...own.settings,
      max: options.max ?? 10,
      application_name: options.applicationName ?? 'surety',
      Client: own.Client,
    });
  // An idle client that loses its connection emits 'error' on the pool; without a listener
  // node would crash the process. The pool already discards that client.
  pool.on('error', (error) => options.onError?.(error));
  // pg-pool listens for a client's errors only while it is idle (and `pool.query` only `once`), but a
  // killed backend can emit 'error' on a checked-out client, or twice ("terminating connection due
  // to administrator command", then "Connection terminated unexpectedly"): without a listener of
  // its own every client would crash the process. The statement in flight fails as unavailable
  // either way, and pg-pool discards the client.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });

  // LISTEN and NOTIFY connections open with the same settings as the pool's own clients.
  const settings: pg.ClientConfig = options.pool ? ownConnectionSettings(options.pool) : own.settings;
  const Client = options.pool ? pg.Client : own.Client;
  const name = options.applicationName ?? settings.application_name ?? 'surety';
  const listening = options.listenUrl
    ? clientFor({ ...settings, connectionString: options.listenUrl })
    : mode === 'none'
      ? { Client, settings }
      : undefined;

  // The connection NOTIFYs go out on (Sql.notify), opened on first use and again after a failure.
  let notifying: Promise<pg.Client> | undefined;
  let closed = false;
  const notifier = (): Promise<pg.Client> => {
    notifying ??= (async () => {
      const client = new Client({ ...settings, application_name: `${name}:notify` });
      client.on('error', (error) => {
        options.onError?.(error);
        notifying = undefined;
        client.end().catch(() => {});
      });
      await client.connect();
      return client;
    })().catch((error: unknown) => {
      notifying = undefined;
      throw error;
    });
    return notifying;
  };

  return {
    kind: 'pg',
    query: (statement, params, queryOptions) => exec(pool, statement, params, queryOptions),
    // Typed by `Sql['transaction']` (types.ts).
    async transaction(fn, txOptions) {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw classifyPg(error);
      }
      let broken: unknown;
      // pg-pool removes its own 'error' listener from a checked-out client: a connection that dies
      // between two statements of this transaction (pg_terminate_backend, a restart, a failover)
      // would emit 'error' with no listener and crash the process. Keep it here; the next statement
      // then fails as unavailable, and the client is destroyed on release.
      const onConnectionError = (error: Error) => {
        broken = error;
        options.onError?.(error);
      };
      client.on('error', onConnectionError);
      try {
        let first: QueryResult<Record<string, unknown>> | undefined;
        if (typeof txOptions?.first === 'string') {
          // One round trip for BEGIN and the first statement (simple protocol, two results).
          const results = (await client.query(`BEGIN; ${txOptions.first}`).catch((error: unknown) => {
            throw classifyPg(error);
          })) as unknown as pg.QueryResult[];
          first = toResult(results[results.length - 1]!);
        } else if (txOptions?.first) {
          const results = await pipeline(client, [
            { statement: begin, params: [] },
            ...firstStatements(txOptions.first).map(step),
          ]);
          first = toResult(results[results.length - 1]!);
        } else {
          await exec(client, 'BEGIN', undefined);
        }
        // Simple protocol for exec: several statements, no parameters (node-postgres returns one result each).
        const { tx, committed, atCommitStatement } = openTransaction({
          query: (statement, params, queryOptions) => exec(client, statement, params, queryOptions),
          exec: (script) => client.query(script),
          driver: { kind: 'pg', client },
        });
        const result = await fn(tx, first);
        const last = atCommitStatement();
        let commit: pg.QueryResult | pg.QueryResult[];
        if (last === undefined) {
          commit = await client.query('COMMIT').catch((error: unknown) => {
            throw classifyPg(error);
          });
        }
        // One round trip: if the statement fails, PostgreSQL skips the COMMIT after it and the
        // transaction is rolled back below.
        else if (typeof last === 'string') {
          // The simple protocol: the statement may be several.
          commit = (await client.query(`${last};\nCOMMIT`).catch((error: unknown) => {
            throw classifyPg(error);
          })) as unknown as pg.QueryResult[];
        } else commit = await pipeline(client, [step(last), { statement: commitStep, params: [] }]);
        // A transaction a failed statement aborted (its error caught in `fn`): PostgreSQL answers
        // COMMIT with ROLLBACK and no error. Nothing was committed, so it fails, as on PGlite.
        if ((Array.isArray(commit) ? commit.at(-1) : commit)?.command === 'ROLLBACK') {
          throw Object.assign(new Error('Transaction was rolled back instead of committed'), {
            code: '25P02',
          });
        }
        runAfterCommit(committed);
        return result;
      } catch (error) {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackError) {
          broken = rollbackError;
        }
        throw classifyPg(error);
      } finally {
        client.removeListener('error', onConnectionError);
        // A client whose ROLLBACK failed, or whose connection broke, is in an unknown state:
        // destroy it rather than reuse it.
        client.release(broken instanceof Error ? broken : undefined);
      }
    },
    async listen(channel, onNotify) {
      if (!listening) {
        throw new Error(
          'Sql.listen() behind a transaction pooler needs a direct URL (createPgSql({ listenUrl }), SURETY_DATABASE_DIRECT_URL): a LISTEN through the pooler is on a server connection other transactions share',
        );
      }
      return listenOn({
        open: listening,
        applicationName: `${name}:listen`,
        channel,
        onNotify,
        onError: options.onError,
      });
    },
    async notify(channel, payload = '') {
      // A wake-up registered before close() (an afterCommit) must not open a new connection after
      // it: the process would never exit.
      if (closed) throw new Error('Sql.notify() after close()');
      try {
        const client = await notifier();
        const text = 'select pg_notify($1, $2)';
        await client.query({
          ...(mode === 'none' ? { name: 'surety_notify' } : {}),
          text,
          values: [channel, payload],
        });
      } catch (error) {
        throw classifyPg(error);
      }
    },
    async close() {
      closed = true;
      const client = notifying;
      notifying = undefined;
      if (client) await (await client.catch(() => undefined))?.end().catch(() => {});
      if (ownsPool) await pool.end();
    },
  };
}
