// The service's database settings (DATABASE_URL, SURETY_DATABASE_POOLER, SURETY_DATABASE_DIRECT_URL,
// SURETY_DATABASE_REPLICA_URL) and how each process opens it: requests and claims on DATABASE_URL (a
// pooler's, often), migrations and LISTEN on the direct URL when one is given (docs/operations.md,
// "Behind a pooler"), list routes on the replica when one is given ("Read replicas").
import { createPgSql, migrate, openSql, type PoolerMode, type Sql } from '@surety/db';
import { migrations as idempotencyMigrations } from '@surety/idempotency';
import { migrations as webhookMigrations } from '@surety/webhooks';
import { migrations } from './migrations.js';

export const allMigrations = [idempotencyMigrations, webhookMigrations, migrations];

/** Wake-up latency of the delivery workers when they cannot LISTEN: their idle poll. */
export const POLL_INTERVAL_MS = 500;

export interface DatabaseConfig {
  /** Unset: the embedded PGlite. */
  databaseUrl: string | undefined;
  /** SURETY_DATABASE_POOLER: `transaction` when DATABASE_URL goes through a transaction-mode pooler. */
  databasePooler: PoolerMode;
  /** SURETY_DATABASE_DIRECT_URL: a direct or session-mode URL for migrations and LISTEN. */
  databaseDirectUrl: string | undefined;
  /** SURETY_DATABASE_REPLICA_URL: a read replica the list routes read from (same pooler mode). */
  databaseReplicaUrl: string | undefined;
}

/** Reads and checks the database settings; `fail` raises the service's ConfigError. */
export function parseDatabaseConfig(
  env: NodeJS.ProcessEnv,
  fail: (message: string) => never,
): DatabaseConfig {
  const databaseUrl = env.DATABASE_URL || undefined;
  const pooler = (env.SURETY_DATABASE_POOLER || 'none').toLowerCase();
  if (pooler !== 'none' && pooler !== 'transaction') {
    fail(
      `SURETY_DATABASE_POOLER must be "transaction" or "none", got ${JSON.stringify(env.SURETY_DATABASE_POOLER)}`,
    );
  }
  const direct = env.SURETY_DATABASE_DIRECT_URL || undefined;
  const replica = env.SURETY_DATABASE_REPLICA_URL || undefined;
  if ((pooler !== 'none' || direct || replica) && !databaseUrl) {
    fail(
      'SURETY_DATABASE_POOLER, SURETY_DATABASE_DIRECT_URL and SURETY_DATABASE_REPLICA_URL need DATABASE_URL (the embedded database has neither pooler nor replica)',
    );
  }
  for (const [name, url] of [
    ['SURETY_DATABASE_DIRECT_URL', direct],
    ['SURETY_DATABASE_REPLICA_URL', replica],
  ] as const) {
    if (url === undefined) continue;
    let scheme = '';
    try {
      scheme = new URL(url).protocol;
    } catch {}
    if (scheme !== 'postgres:' && scheme !== 'postgresql:') fail(`${name} must be a postgres:// URL`);
  }
  return {
    databaseUrl,
    databasePooler: pooler as PoolerMode,
    databaseDirectUrl: direct,
    databaseReplicaUrl: replica,
  };
}

/** The service's `Sql` for one process: pooled queries on DATABASE_URL, LISTEN on the direct URL. */
export function openServiceSql(
  config: DatabaseConfig & { dataDir: string },
  applicationName = 'surety',
): Promise<Sql> {
  return openSql({
    databaseUrl: config.databaseUrl,
    dataDir: config.databaseUrl ? undefined : `${config.dataDir}/db`,
    applicationName,
    pooler: config.databasePooler,
    listenUrl: config.databaseDirectUrl,
  });
}

/**
 * The list routes' `Sql` (docs/operations.md, "Read replicas"): the replica's pool, named
 * `surety-reads`, in DATABASE_URL's pooler mode; undefined without SURETY_DATABASE_REPLICA_URL.
 * Connected on first use, so a replica that is down does not stop the service from starting: its
 * lists answer 503 until it is back.
 */
export function openReplicaSql(config: DatabaseConfig): Sql | undefined {
  if (!config.databaseReplicaUrl) return undefined;
  return createPgSql({
    connectionString: config.databaseReplicaUrl,
    max: 10,
    applicationName: 'surety-reads',
    pooler: config.databasePooler,
  });
}

/** Whether the delivery workers can LISTEN (else they poll every POLL_INTERVAL_MS). */
export const canListen = (config: DatabaseConfig): boolean =>
  config.databasePooler === 'none' || config.databaseDirectUrl !== undefined;

/** Applies the migrations to `schema`. */
export async function runMigrations(sql: Sql, schema: string) {
  return migrate(sql, { schema, sets: allMigrations });
}

/** Applies the migrations: on the direct URL when there is one (DDL and its locks bypass the pooler). */
export async function migrateService(sql: Sql, config: DatabaseConfig & { schema: string }) {
  if (!config.databaseDirectUrl) return migrate(sql, { schema: config.schema, sets: allMigrations });
  const direct = await openSql({
    databaseUrl: config.databaseDirectUrl,
    max: 1,
    applicationName: 'surety:migrate',
  });
  try {
    return await migrate(direct, { schema: config.schema, sets: allMigrations });
  } finally {
    await direct.close();
  }
}
