import { brandError } from '@surety/core';
/** Every `code` an error of this package can carry. */
export type DbErrorCode =
  | 'SURETY_DB_UNAVAILABLE'
  | 'SURETY_DB_POOLER_MISCONFIGURED'
  | 'SURETY_INVALID_CURSOR'
  | 'SURETY_DB_MISSING_PEER'
  | 'SURETY_DB_NESTED_TRANSACTION'
  | 'SURETY_DB_TRANSACTION_OWNED';

// Each class is branded with `Symbol.for('surety.<package>.error…')` by @surety/core's brandError:
// `instanceof` and the guards recognise an error made by another installed copy of this package.

/**
 * Base class: every error of `@surety/db` has a stable `code`.
 * @example
 * if (isDbError(e)) log.warn({ code: e.code }, e.message);
 */
export class DbError extends Error {
  constructor(
    /** Stable, machine-readable: switch on it, never on the message. */
    readonly code: DbErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DbError';
  }
}

/** Whether `e` is an error of this package (of any installed copy). */
export const isDbError = brandError(DbError, 'surety.db.error');

/**
 * Raised when the database cannot be reached or the connection broke mid-statement.
 * Callers map it to 503: nothing is known to have been committed.
 */
export class DatabaseUnavailableError extends DbError {
  declare readonly code: 'SURETY_DB_UNAVAILABLE' | 'SURETY_DB_POOLER_MISCONFIGURED';
  constructor(
    message: string,
    options?: { cause?: unknown },
    code: 'SURETY_DB_UNAVAILABLE' | 'SURETY_DB_POOLER_MISCONFIGURED' = 'SURETY_DB_UNAVAILABLE',
  ) {
    super(code, message, options);
    this.name = 'DatabaseUnavailableError';
  }
}

/**
 * Raised when the connection is behind a transaction-mode pooler (PgBouncer, Supavisor, RDS Proxy…)
 * that Surety was not told about: a named statement prepared in one transaction was missing
 * (SQLSTATE 26000) or already there (42P05) in the next, which ran on another server connection.
 * A kind of {@link DatabaseUnavailableError} (the service answers 503; nothing was committed: the
 * statement that failed was sent before COMMIT, or with it in the same round trip, which the server
 * then skipped). The fix is configuration: `pooler: 'transaction'` (`SURETY_DATABASE_POOLER=transaction`
 * in the service), or a session-mode / direct URL. See docs/operations.md, "Behind a pooler".
 */
export class PoolerMisconfiguredError extends DatabaseUnavailableError {
  declare readonly code: 'SURETY_DB_POOLER_MISCONFIGURED';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options, 'SURETY_DB_POOLER_MISCONFIGURED');
    this.name = 'PoolerMisconfiguredError';
  }
}

/**
 * A pagination cursor that no list of this API wrote (forged, truncated, from another list, or
 * from a version that wrote another shape). Callers map it to 400 `invalid_cursor`.
 */
export class InvalidCursorError extends DbError {
  declare readonly code: 'SURETY_INVALID_CURSOR';
  constructor(message = 'the cursor is not one this API returned') {
    super('SURETY_INVALID_CURSOR', message);
    this.name = 'InvalidCursorError';
  }
}

/** Whether `error` is an {@link InvalidCursorError} (of any installed copy). */
export const isInvalidCursorError = brandError(InvalidCursorError, 'surety.db.error.SURETY_INVALID_CURSOR');

/** Whether `error` is a {@link DatabaseUnavailableError} (of any installed copy). */
export const isDatabaseUnavailableError = brandError(
  DatabaseUnavailableError,
  'surety.db.error.SURETY_DB_UNAVAILABLE',
);

/** Whether `error` is a {@link PoolerMisconfiguredError} (of any installed copy). */
export const isPoolerMisconfiguredError = brandError(
  PoolerMisconfiguredError,
  'surety.db.error.SURETY_DB_POOLER_MISCONFIGURED',
);

// Node socket errors and messages node-postgres / PGlite use when a connection is gone.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  // postgres.js
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  // Prisma: cannot reach the server, timed out reaching it, it closed the connection, no pool slot
  'P1001',
  'P1002',
  'P1017',
  'P2024',
]);
const GONE_MESSAGES = [
  /Connection terminated/i,
  /connection timeout/i,
  /Client has encountered a connection error/i,
  /Client was closed/i,
  /Cannot use a pool after calling end/i,
  /PGlite is closed/i,
  /timeout exceeded when trying to connect/i,
  /Timeout acquiring a connection/i, // knex (tarn) pool
];

/**
 * True when `error` means "the database is not there", as opposed to a SQL error.
 * SQLSTATE classes 08 (connection exception) and 57P0x (operator intervention: shutdown,
 * terminated backend) count; PostgreSQL sends 57P01 when `pg_terminate_backend` or a restart
 * ends the session.
 */
export function isConnectionError(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code)) return true;
    if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03') return true;
  }
  if (GONE_MESSAGES.some((re) => re.test(error.message))) return true;
  const cause = (error as { cause?: unknown }).cause;
  if (cause && cause !== error) return isConnectionError(cause);
  // AggregateError from happy-eyeballs connects (Node >= 20)
  if (error instanceof AggregateError) return error.errors.some(isConnectionError);
  return false;
}

/** Rethrows connection failures as DatabaseUnavailableError, anything else as it is. */
export function classify(error: unknown): unknown {
  if (error instanceof DatabaseUnavailableError) return error;
  if (isConnectionError(error)) {
    return new DatabaseUnavailableError(`database unavailable: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return error;
}

/** The SQLSTATE of a PostgreSQL error, or undefined. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * Raised when a feature needs an optional peer dependency that is not installed: the embedded
 * database (`openSql` without a URL, `createPgliteSql`) needs `@electric-sql/pglite`.
 * The message names the package and the command that installs it.
 */
export class MissingPeerError extends DbError {
  declare readonly code: 'SURETY_DB_MISSING_PEER';
  /** The npm package to install. */
  readonly packageName: string;
  constructor(packageName: string, feature: string, options?: { cause?: unknown }) {
    super(
      'SURETY_DB_MISSING_PEER',
      `${feature} needs the optional package ${packageName}, which is not installed: run \`npm install ${packageName}\` (or use PostgreSQL: a databaseUrl or a pg pool)`,
      options,
    );
    this.name = 'MissingPeerError';
    this.packageName = packageName;
  }
}

/** Whether `error` is a {@link MissingPeerError} (of any installed copy). */
export const isMissingPeerError = brandError(MissingPeerError, 'surety.db.error.SURETY_DB_MISSING_PEER');

/**
 * Raised when a statement sent through a Surety transaction would begin, commit or roll back a
 * transaction of its own (an ORM's `.transaction()` on Surety's connection): an early COMMIT would
 * detach the business write from the Idempotency-Key record. Nothing was sent; the transaction
 * rolls back when the error propagates. Use a savepoint (the ORM's nested transaction through an
 * adapter of `@surety/db/…`, or `SAVEPOINT` yourself) instead.
 */
export class NestedTransactionError extends DbError {
  declare readonly code: 'SURETY_DB_NESTED_TRANSACTION';
  constructor(statement: string, reason?: string) {
    super(
      'SURETY_DB_NESTED_TRANSACTION',
      `"${statement.trim().slice(0, 40)}" inside a Surety transaction: ${reason ?? 'it would end it early and detach the write from its Idempotency-Key; use a savepoint (a nested transaction through the ORM adapters of @surety/db)'}, see docs/orm.md`,
    );
    this.name = 'NestedTransactionError';
  }
}

/** Whether `error` is a {@link NestedTransactionError} (of any installed copy). */
export const isNestedTransactionError = brandError(
  NestedTransactionError,
  'surety.db.error.SURETY_DB_NESTED_TRANSACTION',
);

/**
 * Raised when Surety is asked to do, on a transaction an ORM opened (`joinTransaction` and the
 * adapters' `join…`), what only the ORM may: `atCommit` (its COMMIT is the ORM's), LISTEN, two
 * nested transactions at once, or joining where no transaction is active. Nothing was sent.
 */
export class TransactionOwnedError extends DbError {
  declare readonly code: 'SURETY_DB_TRANSACTION_OWNED';
  constructor(message: string) {
    super('SURETY_DB_TRANSACTION_OWNED', message);
    this.name = 'TransactionOwnedError';
  }
}

/** Whether `error` is a {@link TransactionOwnedError} (of any installed copy). */
export const isTransactionOwnedError = brandError(
  TransactionOwnedError,
  'surety.db.error.SURETY_DB_TRANSACTION_OWNED',
);
