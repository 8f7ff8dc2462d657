import { mkdirSync } from 'node:fs';
import { PoolerMisconfiguredError } from './errors.js';
import { createPgSql } from './pg.js';
import { createPgliteSql } from './pglite.js';
import { detectTransactionPooler, POOLER_SETTING, type PoolerMode } from './pooler.js';
import type { Sql } from './types.js';

export interface OpenSqlOptions {
  /**
   * A PostgreSQL URL; when absent the embedded PGlite is used, which needs the optional package
   * `@electric-sql/pglite` (a MissingPeerError names it when it is not installed).
   */
  databaseUrl?: string | undefined;
  /** Where PGlite keeps its files; omit for in-memory. */
  dataDir?: string | undefined;
  /** Pool size for PostgreSQL. @default 10 */
  max?: number;
  applicationName?: string;
  onError?: (error: Error) => void;
  /**
   * `'transaction'` when `databaseUrl` goes through a transaction-mode pooler (see `createPgSql`).
   * Left at `'none'`, the URL is checked first (`detectTransactionPooler`, two connections, a few
   * round trips): a transaction pooler refuses to open with a PoolerMisconfiguredError naming the
   * setting, instead of failing requests one by one later.
   * @default 'none'
   */
  pooler?: PoolerMode;
  /** A direct (or session-mode) URL for LISTEN behind a transaction pooler (`createPgSql`'s `listenUrl`). */
  listenUrl?: string | undefined;
}

/** PostgreSQL when a URL is given, the embedded PGlite otherwise. */
export async function openSql(options: OpenSqlOptions): Promise<Sql> {
  if (options.databaseUrl) {
    const pooler = options.pooler ?? 'none';
    if (pooler === 'none' && (await detectTransactionPooler({ connectionString: options.databaseUrl }))) {
      throw new PoolerMisconfiguredError(
        `the database URL goes through a transaction-mode pooler (a connection's server backend changed between its transactions): set ${POOLER_SETTING}, and a direct URL for LISTEN (SURETY_DATABASE_DIRECT_URL / listenUrl), or use a direct or session-mode URL`,
      );
    }
    return createPgSql({
      connectionString: options.databaseUrl,
      max: options.max ?? 10,
      applicationName: options.applicationName ?? 'surety',
      pooler,
      ...(options.listenUrl ? { listenUrl: options.listenUrl } : {}),
      ...(options.onError ? { onError: options.onError } : {}),
    });
  }
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  return createPgliteSql(options.dataDir ? { dataDir: options.dataDir } : {});
}
