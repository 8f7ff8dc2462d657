export type { CursorPart, CursorValues, KeysetCursor } from './cursor.js';
export { cursorTimestampSql, keysetCursor } from './cursor.js';
export type { DriverConnection, DriverSqlOptions } from './driver-sql.js';
export { createDriverSql, driverTx } from './driver-sql.js';
export type { PgErrorInfo } from './error-info.js';
export { pgErrorInfo } from './error-info.js';
export type { DbErrorCode } from './errors.js';
export {
  classify,
  DatabaseUnavailableError,
  DbError,
  InvalidCursorError,
  isConnectionError,
  isDatabaseUnavailableError,
  isDbError,
  isInvalidCursorError,
  isMissingPeerError,
  isNestedTransactionError,
  isPoolerMisconfiguredError,
  isTransactionOwnedError,
  MissingPeerError,
  NestedTransactionError,
  PoolerMisconfiguredError,
  sqlState,
  TransactionOwnedError,
} from './errors.js';
export type { JoinedTransaction, OuterTransaction, PipelinedStatement } from './join.js';
export { joinTransaction } from './join.js';
export { literal } from './literal.js';
export type { MigrateOptions, Migration, MigrationSet } from './migrate.js';
export { loadMigrations, migrate, quoteSchema } from './migrate.js';
export type { OpenSqlOptions } from './open.js';
export { openSql } from './open.js';
export type { PgSqlOptions } from './pg.js';
export { createPgSql } from './pg.js';
export type { PgliteInstance, PgliteQueryable, PgliteResult, PgliteSqlOptions } from './pglite.js';
export { createPgliteSql } from './pglite.js';
export type { PoolerMode } from './pooler.js';
export { detectTransactionPooler } from './pooler.js';
export type { Unstorable, UnstorableReason } from './storable.js';
export { findUnstorable, isStorableTimestamp } from './storable.js';
export type {
  FirstStatement,
  ParameterizedStatement,
  Queryable,
  QueryField,
  QueryOptions,
  QueryResult,
  Sql,
  Statement,
  Tx,
  TxDriver,
} from './types.js';
