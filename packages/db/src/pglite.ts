import { runAfterCommit } from './after-commit.js';
import { classify } from './errors.js';
import { loadPglite, type PgliteInstance } from './load-pglite.js';
import { firstStatements, openTransaction } from './transaction.js';
import type { PgliteQueryable, PgliteResult, QueryOptions, QueryResult, Sql, Statement } from './types.js';

export type { PgliteInstance } from './load-pglite.js';
// The driver shapes the contract names (types.ts' TxDriver) live there; re-exported from here.
export type { PgliteQueryable, PgliteResult } from './types.js';

export interface PgliteSqlOptions {
  /** A directory for a persistent database; omit for an in-memory one. */
  dataDir?: string;
  /** Bring your own `PGlite` instance; `close()` then leaves it open. */
  db?: PgliteInstance;
}

/** PGlite's result as Surety's; `rowCount` as it always was here (affected rows, else rows). */
function toResult<R>(result: PgliteResult<R>): QueryResult<R> {
  return {
    rows: result.rows,
    rowCount: result.affectedRows || result.rows.length,
    command: result.command ?? '',
    fields: (result.fields ?? []).map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })),
  };
}

/** Runs one statement on PGlite or its transaction; internal (the adapters use it), not exported by the index. */
export async function run<R>(
  target: PgliteQueryable,
  statement: string | Statement,
  params: readonly unknown[] | undefined,
  options?: QueryOptions,
): Promise<QueryResult<R>> {
  try {
    const text = typeof statement === 'string' ? statement : statement.text;
    const rowMode = options?.rowMode === 'array' ? { rowMode: 'array' as const } : undefined;
    return toResult(await target.query<R>(text, params as unknown[] | undefined, rowMode));
  } catch (error) {
    throw classify(error);
  }
}

/**
 * `Sql` over an embedded PGlite (PostgreSQL compiled to WASM, one connection, in this process).
 * PGlite runs one transaction at a time: a query issued while a transaction is open waits for it.
 * Needs the optional peer dependency `@electric-sql/pglite` (`npm install @electric-sql/pglite`);
 * without it this rejects with a MissingPeerError (`SURETY_DB_MISSING_PEER`) naming the package.
 * @example
 * const sql = await createPgliteSql({ dataDir: './.surety/db' });
 */
export async function createPgliteSql(options: PgliteSqlOptions = {}): Promise<Sql> {
  const ownsDb = !options.db;
  const db = options.db ?? new (await loadPglite())(options.dataDir);
  await db.waitReady;
  return {
    kind: 'pglite',
    query: (statement, params, queryOptions) => run(db, statement, params, queryOptions),
    // Typed by `Sql['transaction']` (types.ts).
    async transaction(fn, options) {
      let committed: readonly (() => void)[] = [];
      try {
        const result = await db.transaction(async (inner) => {
          const open = openTransaction({
            query: (statement, params, queryOptions) => run(inner, statement, params, queryOptions),
            exec: (script) => inner.exec(script),
            driver: { kind: 'pglite', client: inner },
          });
          const { tx, atCommitStatement } = open;
          committed = open.committed;
          let first: QueryResult<Record<string, unknown>> | undefined;
          if (typeof options?.first === 'object') {
            for (const s of firstStatements(options.first)) first = await tx.query(s.statement, s.params);
          } else if (options?.first) {
            // As on PostgreSQL: the simple protocol, so `first` may hold several statements; the
            // last one's result is passed on.
            const results = await inner.exec(options.first).catch((error: unknown) => {
              throw classify(error);
            });
            const last = results.at(-1);
            const rows = (last?.rows ?? []) as Record<string, unknown>[];
            first = { ...toResult({ ...last, rows }), rowCount: last?.affectedRows ?? rows.length };
          }
          const result = await fn(tx, first);
          const last = atCommitStatement();
          if (typeof last === 'string') {
            await inner.exec(last).catch((error: unknown) => {
              throw classify(error);
            });
          } else if (last !== undefined) await tx.query(last.statement, last.params);
          return result;
        });
        runAfterCommit(committed);
        return result;
      } catch (error) {
        throw classify(error);
      }
    },
    async notify(channel, payload = '') {
      await run(db, 'select pg_notify($1, $2)', [channel, payload]);
    },
    async listen(channel, onNotify) {
      const unsubscribe = await db.listen(channel, onNotify);
      return unsubscribe;
    },
    async close() {
      if (ownsDb && !db.closed) await db.close();
    },
  };
}
