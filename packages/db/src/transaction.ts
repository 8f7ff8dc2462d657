import { classify, NestedTransactionError } from './errors.js';
import type { FirstStatement, ParameterizedStatement, Queryable, Tx, TxDriver } from './types.js';

/** A transaction's `Tx` and what its backend does with it once `fn` has returned. */
export interface OpenTransaction {
  /** Handed to the caller's `fn`. */
  readonly tx: Tx;
  /** The `afterCommit` callbacks, in registration order: run them (`runAfterCommit`) after COMMIT only. */
  readonly committed: readonly (() => void)[];
  /** The statement given to `atCommit`, sent with COMMIT; undefined when there is none. */
  atCommitStatement(): string | ParameterizedStatement | undefined;
}

// A statement that opens, ends or prepares a transaction; SAVEPOINT, RELEASE and ROLLBACK TO are
// fine inside one. `do $$ begin … end $$` starts with DO and is not matched.
/** Whether `text` begins, ends or prepares a transaction (internal: the adapters' guard too). */
/**
 * A first statement with parameters as the statements it sends, in order: those `before` it, then
 * it (the one whose result the callback gets). Every `Sql` sends these; only node-postgres pipelines
 * them itself (pg.ts).
 */
export const firstStatements = (first: FirstStatement) => [...(first.before ?? []), first];

export const endsTransaction = (text: string): boolean => ENDS_TRANSACTION.test(text);

const ENDS_TRANSACTION =
  /^\s*(?:begin|start\s+transaction|commit|end|abort|rollback(?!\s+(?:work\s+|transaction\s+)?to\b)|prepare\s+transaction)\b/i;

/**
 * The `Tx` object both backends hand out (`pg.ts`, `pglite.ts`), written once so that `atCommit`
 * and `afterCommit` mean exactly the same on each (see `types.ts`). The backend opens and ends the
 * transaction itself: how BEGIN and the first statement go out, and how COMMIT carries the
 * `atCommit` statement, differ between a pool client and PGlite.
 * @example
 * const open = openTransaction({ query: (s, p) => run(client, s, p), exec: (script) => client.query(script) });
 */
export function openTransaction(backend: {
  /** Runs one statement inside the transaction; already classifies its errors. */
  query: Queryable['query'];
  /** The connection under it, handed to drivers that need it (`Tx.driver`). */
  driver: TxDriver;
  /** Runs a script with the simple protocol; its errors are classified here. */
  exec: (script: string) => Promise<unknown>;
}): OpenTransaction {
  let last: string | ParameterizedStatement | undefined;
  const committed: (() => void)[] = [];
  const tx: Tx = {
    inTransaction: true,
    afterCommit(callback) {
      committed.push(callback);
    },
    atCommit(statement) {
      if (last !== undefined) throw new Error('atCommit: one statement per transaction');
      last = statement;
    },
    driver: backend.driver,
    query(statement, params, options) {
      const text = typeof statement === 'string' ? statement : statement.text;
      // Cheap (an anchored regex on the first characters) and decisive: an ORM that runs its own
      // transaction on Surety's connection would COMMIT the business write apart from the key.
      if (ENDS_TRANSACTION.test(text)) return Promise.reject(new NestedTransactionError(text));
      return backend.query(statement, params, options);
    },
    async exec(script) {
      try {
        await backend.exec(script);
      } catch (error) {
        throw classify(error);
      }
    },
  };
  return { tx, committed, atCommitStatement: () => last };
}
