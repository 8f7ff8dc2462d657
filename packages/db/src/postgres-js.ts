import type postgres from 'postgres';
import { runAfterCommit } from './after-commit.js';
import { classify } from './errors.js';
import { type JoinedTransaction, joinTransaction, type OuterTransaction } from './join.js';
import { firstStatements, openTransaction } from './transaction.js';
import type { QueryOptions, QueryResult, Sql, Statement, Tx } from './types.js';

// postgres.js speaks the wire protocol itself, so it cannot run on a node-postgres Tx: here Surety's
// `Sql` and `Tx` are built over postgres.js (its `begin()`, its pipelining), and a transaction that
// postgres.js opened is joined (`postgresTx`).

/** Any postgres.js connection: the pool (`postgres(url)`), a transaction or a reserved connection. */
type PostgresJs = postgres.Sql | postgres.TransactionSql;

type Row = Record<string, unknown>;

async function run<R>(
  on: PostgresJs,
  statement: string | Statement,
  params: readonly unknown[] | undefined,
  options?: QueryOptions,
): Promise<QueryResult<R>> {
  const text = typeof statement === 'string' ? statement : statement.text;
  try {
    // With parameters: the extended protocol, prepared (and its plan cached) on each connection when
    // the statement is named. Without: the simple protocol, so a script of several statements runs.
    const pending = on.unsafe(text, (params ?? []) as postgres.ParameterOrJSON<never>[], {
      prepare: typeof statement !== 'string' && statement.name !== undefined,
    });
    const result = options?.rowMode === 'array' ? await pending.values() : await pending;
    return {
      rows: [...result] as R[],
      rowCount: result.count ?? result.length,
      command: (result.command ?? '').toUpperCase(),
      fields: (result.columns ?? []).map((c) => ({ name: c.name, dataTypeID: c.type })),
    };
  } catch (error) {
    // postgres.js names the error's fields after the protocol (`table_name`, …): the engines read
    // them with pgErrorInfo.
    throw classify(error);
  }
}

/**
 * The postgres.js transaction behind a `Tx` of {@link postgresSql} (or of a joined
 * transaction): write through it with postgres.js' full API, in the same transaction as the
 * Idempotency-Key, a published event or an inbox record. Its `savepoint()` nests as usual.
 * @example
 * app.post('/payments', { config: { idempotency: true } }, async (req) => {
 *   const trx = postgresOf(txOf(req));
 *   const [payment] = await trx`insert into payments ${trx(req.body)} returning *`;
 *   return payment;
 * });
 */
export function postgresOf(tx: Tx): postgres.TransactionSql {
  const { driver } = tx;
  if (driver.kind !== 'driver' || driver.name !== 'postgres.js') {
    throw new TypeError('postgresOf: this Tx is not one of @surety/db/postgres-js');
  }
  return driver.client as postgres.TransactionSql;
}

function refuseTransforms(pgjs: postgres.Sql): void {
  const transform = pgjs.options?.transform;
  if (transform?.column?.from || transform?.row?.from || transform?.value?.from) {
    throw new TypeError(
      '@surety/db/postgres-js needs rows as PostgreSQL returns them: create the postgres.js instance ' +
        'that Surety uses without a `transform` option (keep one with transforms for your own queries)',
    );
  }
}

/**
 * Surety's `Sql` over postgres.js: the idempotency engine, the webhook outbox and the inbox run on
 * it, and a handler writes through postgres.js in the same transaction (`postgresOf(tx)`).
 * Transactions are postgres.js' `begin()`; the `atCommit` statement is pipelined with COMMIT. What
 * is lost against node-postgres: `begin()` waits for BEGIN before the first statement, so the
 * claim costs one round trip more. `close()` ends the instance only when `options.end` is true.
 * @example
 * const pgjs = postgres(process.env.DATABASE_URL!);
 * const engine = createIdempotency({ sql: postgresSql(pgjs) });
 */
export function postgresSql(pgjs: postgres.Sql, options: { end?: boolean } = {}): Sql {
  refuseTransforms(pgjs);
  return {
    kind: 'driver',
    query: (statement, params, queryOptions) => run(pgjs, statement, params, queryOptions),
    async transaction(fn, txOptions) {
      let pending: Promise<unknown> | undefined;
      let committed: readonly (() => void)[] = [];
      try {
        const result = await pgjs.begin(async (trx) => {
          const open = openTransaction({
            query: (statement, params, queryOptions) => run(trx, statement, params, queryOptions),
            exec: (script) => run(trx, script, undefined),
            driver: { kind: 'driver', name: 'postgres.js', client: trx },
          });
          committed = open.committed;
          const first = txOptions?.first;
          let firstResult: QueryResult<Row> | undefined;
          if (typeof first === 'string') firstResult = await run<Row>(trx, first, undefined);
          else if (first)
            for (const s of firstStatements(first)) firstResult = await run<Row>(trx, s.statement, s.params);
          const value = await fn(open.tx, firstResult);
          const last = open.atCommitStatement();
          if (last !== undefined) {
            // Not awaited: postgres.js then sends COMMIT right behind it, one round trip. If it
            // fails, PostgreSQL answers that COMMIT with a ROLLBACK (the transaction is aborted) and
            // the failure is thrown below, after begin() returns: nothing was committed.
            pending =
              typeof last === 'string' ? run(trx, last, undefined) : run(trx, last.statement, last.params);
            pending.catch(() => {});
          }
          return value;
        });
        if (pending) await pending;
        runAfterCommit(committed);
        return result as never;
      } catch (error) {
        throw classify(error);
      }
    },
    async listen(channel, onNotify) {
      try {
        const request = await pgjs.listen(channel, onNotify);
        return async () => {
          await request.unlisten().catch(() => {});
        };
      } catch (error) {
        throw classify(error);
      }
    },
    async notify(channel, payload = '') {
      await run(pgjs, 'select pg_notify($1, $2)', [channel, payload]);
    },
    async close() {
      if (options.end) await pgjs.end();
    },
  };
}

function outerOf(trx: postgres.TransactionSql): OuterTransaction {
  return {
    name: 'postgres.js',
    client: trx,
    query: (statement, params, options) => run(trx, statement, params, options),
    // postgres.js pipelines the statements given to it before their answers are read.
    pipeline: (statements) => Promise.all(statements.map((s) => run<Row>(trx, s.statement, s.params))),
    savepoint: (fn) => trx.savepoint((inner) => fn(outerOf(inner))) as Promise<never>,
  };
}

/**
 * Surety's view of a transaction postgres.js opened (`sql.begin(trx => …)`): pass it to
 * `engine.using(joined)`, `webhooks.publish(joined, …)` or `inbox.receive(joined, …)`, and they
 * commit with your transaction. The engine's claim runs in a postgres.js savepoint (`trx.savepoint`),
 * which costs a round trip of its own. Call `joined.committed()` after `begin()` resolves to run the
 * after-commit wake-ups (or open the transaction with {@link postgresBegin}, which does).
 * @example
 * await pgjs.begin(async (trx) => {
 *   const joined = postgresTx(trx);
 *   await webhooks.publish(joined, { tenant, type: 'order.paid', data });
 * });
 */
export function postgresTx(trx: postgres.TransactionSql): JoinedTransaction {
  return joinTransaction(outerOf(trx));
}

/**
 * `sql.begin()` with Surety joined to it: `fn` gets postgres.js' transaction and Surety's view of it,
 * and the after-commit wake-ups run once postgres.js has committed.
 * @example
 * const outcome = await postgresBegin(pgjs, (trx, joined) =>
 *   engine.using(joined).execute(request, async () => {
 *     await trx`insert into payments ${trx(payment)}`;
 *     return { status: 201, headers: {}, body: JSON.stringify(payment) };
 *   }),
 * );
 */
export async function postgresBegin<T>(
  pgjs: postgres.Sql,
  fn: (trx: postgres.TransactionSql, joined: JoinedTransaction) => Promise<T>,
): Promise<T> {
  let joined: JoinedTransaction | undefined;
  const result = (await pgjs.begin((trx) => {
    joined = postgresTx(trx);
    return fn(trx, joined);
  })) as T;
  joined?.committed();
  return result;
}
