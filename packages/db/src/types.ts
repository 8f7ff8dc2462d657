/** A prepared, named statement. `name` lets node-postgres reuse the server-side plan on each connection. */
export interface Statement {
  readonly name?: string;
  readonly text: string;
}

import type pg from 'pg';

export interface QueryResult<R> {
  /** One object per row, keyed by column name; one array per row with `rowMode: 'array'`. */
  rows: R[];
  /** Rows inserted, updated, deleted or returned. */
  rowCount: number;
  /**
   * The command tag's verb: `'SELECT'`, `'INSERT'`, `'UPDATE'`, `'DELETE'`, `'MERGE'`, … (what
   * knex and other drivers switch on). Empty when the backend reported none.
   */
  command: string;
  /** The result's columns in order, with their type OIDs (what Drizzle and Kysely map by). */
  fields: readonly QueryField[];
}

/** One column of a result. */
export interface QueryField {
  readonly name: string;
  /** The PostgreSQL type OID (`pg_type.oid`): 23 is int4, 25 text, 3802 jsonb, … */
  readonly dataTypeID: number;
}

export interface QueryOptions {
  /**
   * `'array'`: each row is an array of values in column order, so two columns of the same name
   * (a self-join's `a.id` and `b.id`) both survive. What ORMs that map columns by position need.
   * @default 'object'
   */
  rowMode?: 'object' | 'array';
}

/** Anything that can run a statement: the pool itself or an open transaction. */
export interface Queryable {
  query<R = Record<string, unknown>>(
    statement: string | Statement,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): Promise<QueryResult<R>>;
}

/** What Surety calls on a PGlite connection or transaction (a driver shape of the contract, not the backend: `pglite.ts` is). */
export interface PgliteQueryable {
  query<R>(
    query: string,
    params?: unknown[],
    options?: { rowMode?: 'object' | 'array' },
  ): Promise<PgliteResult<R>>;
  exec(query: string): Promise<PgliteResult<unknown>[]>;
}

/** What PGlite returns for one statement (the part Surety reads). */
export interface PgliteResult<R> {
  rows: R[];
  affectedRows?: number;
  /** The command tag's verb; PGlite >= 0.3 reports it. */
  command?: string;
  fields?: readonly { name: string; dataTypeID: number }[];
}

/**
 * The connection under a transaction, for a driver that must talk to it itself (Drizzle's and
 * knex's node-postgres clients, Drizzle's PGlite driver). Statements sent on it directly bypass
 * the guard of `Tx.query` against a nested BEGIN / COMMIT: the adapters of `@surety/db/…` wrap it.
 */
export type TxDriver =
  | { readonly kind: 'pg'; readonly client: pg.PoolClient }
  | { readonly kind: 'pglite'; readonly client: PgliteQueryable }
  /** A transaction another driver opened (`createDriverSql`): that driver's transaction object. */
  | { readonly kind: 'driver'; readonly name: string; readonly client: unknown };

/** An open transaction. Statements run on one connection, in order. */
export interface Tx extends Queryable {
  readonly inTransaction: true;
  /** The underlying connection and its kind; see {@link TxDriver}. */
  readonly driver: TxDriver;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
  /**
   * Sends `statement` (WITHOUT parameters: build values with `literal`) in the same round trip as
   * COMMIT, as the transaction's last statement. If it fails, nothing commits and the
   * transaction's promise rejects with its error. At most one per transaction.
   * @example
   * tx.atCommit(`insert into audit (note) values (${literal(note)})`);
   * tx.atCommit({ statement: { name: 'audit_insert', text: 'insert into audit (note) values ($1)' }, params: [note] });
   *
   * Text goes by the simple protocol (it may hold several statements, every value a literal); a
   * statement with parameters by the extended protocol, pipelined with COMMIT on node-postgres (a
   * named one is parsed once per connection and keeps its cached plan).
   */
  atCommit(statement: string | ParameterizedStatement): void;
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
  first?: string | FirstStatement;
}

/** A statement and its parameters (`Tx.atCommit`, `FirstStatement.before`). */
export interface ParameterizedStatement {
  statement: Statement;
  params: readonly unknown[];
}

/** A first statement with parameters (`TransactionOptions.first`). */
export interface FirstStatement {
  statement: Statement;
  params: readonly unknown[];
  /**
   * Statements run before it, in the same round trip, for their effects only (their results are not
   * passed on). Each starts after the one before it ended, so under READ COMMITTED the first
   * statement's snapshot holds every commit made before them: a lock taken here, then a read of
   * what the lock's previous holder committed (an Idempotency-Key's claim).
   */
  before?: readonly { statement: Statement; params: readonly unknown[] }[];
}

/**
 * The one database interface every Surety package takes. Implemented over a `pg` Pool
 * (`createPgSql`), over an embedded PGlite (`createPgliteSql`), and over another driver's
 * transactions (`createDriverSql`, what the ORM adapters build).
 */
export interface Sql extends Queryable {
  readonly kind: 'pg' | 'pglite' | 'driver';
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
