export {
  classify,
  DatabaseUnavailableError,
  isConnectionError,
  isDatabaseUnavailableError,
  isMissingPeerError,
  MissingPeerError,
  sqlState,
} from './errors.js';
export { literal } from './literal.js';
export type { MigrateOptions, Migration, MigrationSet } from './migrate.js';
export { loadMigrations, migrate, quoteSchema } from './migrate.js';
export type { OpenSqlOptions } from './open.js';
export { openSql } from './open.js';
export type { PgSqlOptions } from './pg.js';
export { createPgSql } from './pg.js';
export type { PgliteInstance, PgliteQueryable, PgliteSqlOptions } from './pglite.js';
export { createPgliteSql } from './pglite.js';
export type { Queryable, QueryResult, Sql, Statement, Tx } from './types.js';
