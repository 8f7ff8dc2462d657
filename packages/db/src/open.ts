import { mkdirSync } from 'node:fs';
import { createPgSql } from './pg.js';
import { createPgliteSql } from './pglite.js';
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
}

/** PostgreSQL when a URL is given, the embedded PGlite otherwise. */
export async function openSql(options: OpenSqlOptions): Promise<Sql> {
  if (options.databaseUrl) {
    return createPgSql({
      connectionString: options.databaseUrl,
      max: options.max ?? 10,
      applicationName: options.applicationName ?? 'surety',
      ...(options.onError ? { onError: options.onError } : {}),
    });
  }
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  return createPgliteSql(options.dataDir ? { dataDir: options.dataDir } : {});
}
