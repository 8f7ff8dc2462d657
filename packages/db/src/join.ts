import { runAfterCommit } from './after-commit.js';
import { classify, NestedTransactionError, TransactionOwnedError } from './errors.js';
import { endsTransaction, firstStatements, openTransaction } from './transaction.js';
import type { Queryable, QueryResult, Sql, Statement, TransactionOptions, Tx, TxDriver } from './types.js';

/** One statement of a {@link OuterTransaction.pipeline}. */
export interface PipelinedStatement {
  statement: string | Statement;
  params?: readonly unknown[];
}

/** What {@link joinTransaction} needs from a transaction that someone else (an ORM) opened. */
export interface OuterTransaction {
  /** The driver's name, shown as `tx.driver.name` (`'postgres.js'`, `'prisma'`, `'typeorm'`, …). */
  name: string;
  /** Runs one statement with parameters inside the outer transaction (`rowMode` where it can). */
  query: Queryable['query'];
  /**
   * Sends several statements in one round trip, in order, and resolves to their results (a driver
   * that pipelines, as postgres.js does). When one fails, the promise rejects with its error.
   * Without it they go one after the other.
   */
  pipeline?: (statements: readonly PipelinedStatement[]) => Promise<QueryResult<Record<string, unknown>>[]>;
  /**
   * Runs a script of several statements without parameters. Without it, `exec` sends the script
   * through `query` (which fails on drivers that prepare every statement).
   */
  exec?: (script: string) => Promise<unknown>;
  /**
   * The driver's own savepoint, when it has one that must be used (postgres.js fails a whole
   * transaction for any error inside it, except one inside its `savepoint()`): runs `fn` on the
   * inner transaction and rolls back to the savepoint when it throws. Without it, the savepoint is
   * SAVEPOINT / RELEASE / ROLLBACK TO statements sent through `query` or `pipeline`.
   */
  savepoint?: <T>(fn: (inner: OuterTransaction) => Promise<T>) => Promise<T>;
  /** The driver's transaction object, handed out as `tx.driver.client` by every Tx made from it. */
  client: unknown;
}

/**
 * A transaction an ORM opened, seen as Surety's: it is a `Tx` (give it to `publish()` of
 * @surety/webhooks or to the inbox of @surety/webhook-verify) and a `Sql` whose `transaction()` is
 * a SAVEPOINT inside it (give it to the idempotency engine with `engine.using(joined)`): a nested
 * transaction that fails, or that the engine rolls back for a 5xx, is rolled back to its savepoint
 * and leaves the outer transaction usable; one that succeeds commits when, and only when, the outer
 * transaction commits.
 */
export interface JoinedTransaction extends Sql, Tx {
  /**
   * Runs the `afterCommit` callbacks registered so far (the webhook workers' wake-up). Call it once
   * the outer transaction has committed, never after a rollback; each adapter's helper that opens
   * the ORM's transaction for you does. Later calls run nothing.
   */
  committed(): void;
}

/**
 * Surety's view of a transaction an ORM opened. The outer transaction stays the ORM's: it commits
 * or rolls back as the ORM decides, and the engine's key, a published event and an inbox record
 * commit with it.
 * @example
 * await pgjs.begin(async (trx) => {
 *   const joined = joinTransaction({ query: (s, p) => run(trx, s, p) });
 *   await engine.using(joined).execute(request, async () => { await trx`insert …`; return response; });
 * });
 */
export function joinTransaction(outer: OuterTransaction): JoinedTransaction {
  const callbacks: (() => void)[] = [];
  const own = session(outer);
  let savepoints = 0;
  let nested = false;
  let done = false;

  // The savepoint's body on `on`: `open` (SAVEPOINT, when it is ours) with the first statement in
  // one round trip where the driver pipelines, `fn`, then the atCommit statement with `close`
  // (RELEASE); if that statement fails, the savepoint is rolled back (the caller's catch).
  async function body<T>(
    on: Session,
    open: PipelinedStatement[],
    fn: (tx: Tx, first: QueryResult<Record<string, unknown>> | undefined) => Promise<T>,
    options: TransactionOptions | undefined,
    close: PipelinedStatement[],
  ): Promise<{ result: T; committed: readonly (() => void)[] }> {
    const opened = openTransaction({ query: on.query, driver: on.driver, exec: on.exec });
    const first = options?.first;
    if (typeof first === 'string') open.push({ statement: first });
    else if (first)
      for (const s of firstStatements(first)) open.push({ statement: s.statement, params: s.params });
    const results = open.length > 0 ? await on.pipeline(open) : [];
    const result = await fn(opened.tx, first === undefined ? undefined : results.at(-1));
    const last = opened.atCommitStatement();
    const closing = [
      ...(last === undefined ? [] : [typeof last === 'string' ? { statement: last } : last]),
      ...close,
    ];
    if (closing.length > 0) await on.pipeline(closing);
    return { result, committed: opened.committed };
  }

  async function transaction<T>(
    fn: (tx: Tx, first: QueryResult<Record<string, unknown>> | undefined) => Promise<T>,
    options?: TransactionOptions,
  ): Promise<T> {
    // Savepoints of one connection nest; two at once on it would interleave and release each other.
    if (nested) throw new TransactionOwnedError('one nested transaction at a time on a joined transaction');
    nested = true;
    try {
      let ran: { result: T; committed: readonly (() => void)[] };
      if (outer.savepoint) {
        // The driver's own savepoints (postgres.js fails a whole transaction for an error outside them).
        ran = await outer.savepoint((inner) => body(session(inner), [], fn, options, []));
      } else {
        const name = `surety_sp_${++savepoints}`;
        try {
          ran = await body(own, [{ statement: `SAVEPOINT ${name}` }], fn, options, [
            { statement: `RELEASE SAVEPOINT ${name}` },
          ]);
        } catch (error) {
          // Fails only when the outer transaction is gone (the connection broke, or the ORM ended it):
          // the error that brought us here is the one to report.
          await own.pipeline([{ statement: `ROLLBACK TO SAVEPOINT ${name}` }]).catch(() => {});
          throw error;
        }
      }
      callbacks.push(...ran.committed);
      return ran.result;
    } finally {
      nested = false;
    }
  }

  const joined: JoinedTransaction = {
    kind: 'driver',
    inTransaction: true,
    driver: own.driver,
    query(statement, params, options) {
      const text = typeof statement === 'string' ? statement : statement.text;
      // As on every Tx: a COMMIT here would end the ORM's transaction behind its back.
      if (endsTransaction(text)) return Promise.reject(new NestedTransactionError(text));
      return own.query(statement, params, options);
    },
    exec: own.exec,
    transaction,
    atCommit() {
      throw new TransactionOwnedError(
        'atCommit is not available on a joined transaction: its COMMIT belongs to the ORM; run the statement with query()',
      );
    },
    afterCommit(callback) {
      callbacks.push(callback);
    },
    committed() {
      if (done) return;
      done = true;
      runAfterCommit(callbacks.splice(0));
    },
    async listen() {
      throw new TransactionOwnedError(
        'listen() needs a connection of its own: call it on your Sql, not on a joined transaction',
      );
    },
    // Inside the transaction: PostgreSQL delivers it at COMMIT, never after a rollback.
    async notify(channel, payload = '') {
      await own.query('select 1 from pg_notify($1, $2)', [channel, payload]); // void: not read back
    },
    // The outer transaction and its connection belong to the ORM.
    async close() {},
  };
  return joined;
}

interface Session {
  driver: TxDriver;
  query: Queryable['query'];
  pipeline: (statements: readonly PipelinedStatement[]) => Promise<QueryResult<Record<string, unknown>>[]>;
  exec: (script: string) => Promise<void>;
}

/** The outer transaction's statements, with their errors classified. */
function session(outer: OuterTransaction): Session {
  return {
    driver: { kind: 'driver', name: outer.name, client: outer.client },
    async query(statement, params, options) {
      try {
        return await outer.query(statement, params, options);
      } catch (error) {
        throw classify(error);
      }
    },
    async pipeline(statements) {
      try {
        if (outer.pipeline) return await outer.pipeline(statements);
        const results: QueryResult<Record<string, unknown>>[] = [];
        for (const s of statements) results.push(await outer.query(s.statement, s.params));
        return results;
      } catch (error) {
        throw classify(error);
      }
    },
    async exec(script) {
      try {
        await (outer.exec ? outer.exec(script) : outer.query(script));
      } catch (error) {
        throw classify(error);
      }
    },
  };
}
