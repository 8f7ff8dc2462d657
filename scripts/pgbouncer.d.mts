// Types of scripts/pgbouncer.mjs for the TypeScript tests that import it.
export interface RunningPgBouncer {
  /** The same database as the one given, through PgBouncer. */
  url: string;
  port: number;
  stop(): Promise<void>;
}
/** Why PgBouncer cannot run here (a test's skip reason), or false. */
export function pgbouncerMissing(): string | false;
/** Starts PgBouncer 1.18+ in transaction mode on a loopback port in front of `databaseUrl`'s server. */
export function startPgBouncer(options: { databaseUrl: string; port?: number }): Promise<RunningPgBouncer>;
