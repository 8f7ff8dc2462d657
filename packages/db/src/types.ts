/** A prepared, named statement. `name` lets node-postgres reuse the server-side plan on each connection. */
export interface Statement {
  readonly name?: string;
  readonly text: string;
}

export interface QueryResult<R> {
  rows: R[];
  /** Rows inserted, updated, deleted or returned. */
  rowCount: number;
}

/** Anything that can run a statement: the pool itself or an open transaction. */
export interface Queryable {
  query<R = Record<string, unknown>>(
    statement: string | Statement,
    params?: readonly unknown[],
  ): Promise<QueryResult<R>>;
}

/** An open transaction. Statements run on one connection, in order. */
export interface Tx extends Queryable {
  readonly inTransaction: true;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
  /**
   * Sends `statement` (WITHOUT parameters: build values with `literal`) in the same round trip as
   * COMMIT, as the transaction's last statement. If it fails, nothing commits and the
   * transaction's promise rejects with its error. At most one per transaction.
   * @example
   * tx.atCommit(`insert into audit (note) values (${literal(note)})`);
   */
  atCommit(statement: string): void;
  /**
   * Runs `callback` once COMMIT has succeeded (never after a rollback), before the transaction's
   * promise resolves. For hints that must not hold the transaction open, such as waking a worker.
   * A callback that throws is ignored: the transaction has committed.
   */
  afterCommit(callback: () => void): void;
}

export interface TransactionOptions {
  /**
   * A first statement sent in the same round trip as BEGIN on PostgreSQL; its result is passed to
   * the callback. Either text without parameters (the simple protocol: may hold several statements,
   * the last one's result is passed), or a statement with parameters (the extended protocol: BEGIN
   * and the statement pipelined before one Sync; a named statement is parsed once per connection).
   */
  first?: string | { statement: Statement; params: readonly unknown[] };
}

/**
 * The one database interface every Surety package takes. Implemented over a `pg` Pool
 * (`createPgSql`) and over an embedded PGlite (`createPgliteSql`).
 */
export interface Sql extends Queryable {
  readonly kind: 'pg' | 'pglite';
  /**
   * Runs `fn` in a transaction: COMMIT when it resolves, ROLLBACK when it throws.
   * The promise resolves only after COMMIT succeeded.
   */
  transaction<T>(
    fn: (tx: Tx, first: QueryResult<Record<string, unknown>> | undefined) => Promise<T>,
    options?: TransactionOptions,
  ): Promise<T>;
  /**
   * A dedicated connection for LISTEN. Resolves to a function that stops listening.
   * On PGlite the notification is delivered in-process.
   */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  /**
   * Sends a NOTIFY outside any transaction, on a connection of its own: never queued behind the
   * pool's transactions, never holding one open. On PGlite, in-process.
   */
  notify(channel: string, payload?: string): Promise<void>;
  /** Closes the pool or the embedded database. */
  close(): Promise<void>;
}
