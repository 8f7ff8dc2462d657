import { randomBytes } from 'node:crypto';
import { createPgSql } from './pg.js';
import { createPgliteSql } from './pglite.js';
import type { Sql } from './types.js';

/** The PostgreSQL server the suite runs against, when `DATABASE_URL` is set. */
export const postgresUrl: string | undefined = process.env.DATABASE_URL || undefined;

/**
 * How the suite's pools reach that server: through a transaction-mode pooler when
 * `SURETY_DATABASE_POOLER=transaction` (.ci/run's pass through PgBouncer), with LISTEN on
 * `SURETY_DATABASE_DIRECT_URL`. Spread into `createPgSql` options.
 */
export const poolerOptions: { pooler?: 'transaction'; listenUrl?: string } =
  process.env.SURETY_DATABASE_POOLER === 'transaction'
    ? {
        pooler: 'transaction',
        ...(process.env.SURETY_DATABASE_DIRECT_URL
          ? { listenUrl: process.env.SURETY_DATABASE_DIRECT_URL }
          : {}),
      }
    : {};

/**
 * For a test of what a transaction pooler rules out (named statements reused across transactions,
 * LISTEN on a pool's own settings, a driver that prepares by name): the reason it is skipped in the
 * pass through the pooler, else false. packages/db/test/pooler.test.ts tests each of those there.
 */
export const directOnly: string | false = poolerOptions.pooler
  ? 'needs a direct connection: session state across transactions (SURETY_DATABASE_POOLER=transaction)'
  : false;

/**
 * For `test(name, { skip: needsPostgres }, fn)`: false when a server is configured, otherwise the
 * reason the test is skipped, which node's test runner prints.
 */
export const needsPostgres: string | false = postgresUrl
  ? false
  : 'needs a PostgreSQL server (several connections): set DATABASE_URL';

export interface TestDatabase {
  sql: Sql;
  /** A schema of this test file's own; drop it with `close()`. */
  schema: string;
  backend: 'pg' | 'pglite';
  /** Opens another independent pool on the same database (PostgreSQL only). */
  connect(max?: number): Sql;
  close(): Promise<void>;
}

/**
 * A fresh, isolated database for one test file: a new schema on the PostgreSQL server when
 * `DATABASE_URL` is set, else a new in-memory PGlite.
 */
export async function createTestDatabase(options: { max?: number } = {}): Promise<TestDatabase> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  if (postgresUrl) {
    const url = postgresUrl;
    const pools: Sql[] = [];
    const connect = (max = options.max ?? 20) => {
      // pg-pool's connection timeout also bounds the wait for a free client. Tests that send a
      // hundred requests at a pool of 20 on a loaded CI machine can queue past the product's 5 s;
      // a test that wants the timeout sets its own.
      const sql = createPgSql({
        connectionString: url,
        max,
        connectionTimeoutMillis: 30_000,
        applicationName: `surety-test:${schema}`,
        ...poolerOptions,
      });
      pools.push(sql);
      return sql;
    };
    const sql = connect();
    return {
      sql,
      schema,
      backend: 'pg',
      connect,
      async close() {
        await sql.query(`drop schema if exists "${schema}" cascade`).catch(() => {});
        await Promise.all(pools.map((p) => p.close().catch(() => {})));
      },
    };
  }
  const sql = await createPgliteSql();
  return {
    sql,
    schema,
    backend: 'pglite',
    connect() {
      throw new Error('PGlite has a single connection; guard the test with needsPostgres');
    },
    close: () => sql.close(),
  };
}
