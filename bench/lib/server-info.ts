// What bench/run.ts reports of the machine and the PostgreSQL server: the hardware, the server's version
// and settings, and each benchmark's top statements (pg_stat_statements, reset before it).
import { cpus, freemem, totalmem } from 'node:os';
import pg from 'pg';
import { REPORTED_SETTINGS } from './cluster.js';

export async function machine(url: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const { rows } = await c.query<{ v: string }>("select current_setting('server_version') as v");
  const settings = await c.query<{ name: string; setting: string }>(
    'select name, current_setting(name) as setting from pg_settings where name = any($1) order by name',
    [[...REPORTED_SETTINGS]],
  );
  await c.end();
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memGiB: totalmem() / 2 ** 30,
    freeGiB: freemem() / 2 ** 30,
    node: process.version,
    postgres: rows[0]!.v,
    settings: Object.fromEntries(settings.rows.map((r) => [r.name, r.setting])),
  };
}

// --- pg_stat_statements: reset before a benchmark, its top statements after -------------------------
export interface Statement {
  query: string;
  calls: number;
  totalMs: number;
  meanMs: number;
  rows: number;
}
async function statementsQuery<T extends pg.QueryResultRow>(
  url: string,
  text: string,
): Promise<T[] | undefined> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('create extension if not exists pg_stat_statements');
    return (await c.query<T>(text)).rows;
  } catch {
    return undefined; // not loaded on this server (shared_preload_libraries): the report says so
  } finally {
    await c.end();
  }
}
export const resetStatements = (url: string) => statementsQuery(url, 'select pg_stat_statements_reset()');
export const topStatements = async (url: string): Promise<Statement[] | undefined> =>
  (
    await statementsQuery<{ query: string; calls: string; total: number; mean: number; rows: string }>(
      url,
      `select query, calls, total_exec_time as total, mean_exec_time as mean, rows
         from pg_stat_statements
        where query not like '%pg_stat_statements%' and calls >= 100
        order by total_exec_time desc limit 10`,
    )
  )?.map((r) => ({
    query: r.query.replace(/\s+/g, ' ').trim(),
    calls: Number(r.calls),
    totalMs: r.total,
    meanMs: r.mean,
    rows: Number(r.rows),
  }));
