// bench/scale/run.ts's settings, from the command line, and the helpers its cases (api.ts, workers.ts)
// share. Read once, by the first module that imports it.
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { args, requireDatabaseUrl } from '../lib/stats.js';

const a = args();
export const duration = a.num('seconds', a.quick ? 3 : 8);
export const fastBacklog = a.num('events', a.quick ? 3000 : 15000);
// Receivers that take 50 ms to answer (a real receiver does work): one worker is then bounded by its
// 64 attempts in flight (~1,280/s), not by this box's two cores, which is where more processes help.
export const SLOW_MS = 50;
export const slowBacklog = a.num('slow-events', a.quick ? 6000 : 12000);
// Attempts in flight per worker for the `slow` rows: 4 processes × 16 × 20/s = 1,280 deliveries/s at
// ~0.5 ms of CPU each (all processes) is ~0.65 of this box's 2 cores; 2 processes ~0.3.
export const SLOW_IN_FLIGHT = a.num('slow-in-flight', 16);
// Seconds of each process count's ideal rate (in flight × 1000 / SLOW_MS per process) in its backlog.
export const slowSeconds = a.num('slow-seconds', a.quick ? 4 : 8);
export const DEFAULT_IN_FLIGHT = 64;
// Deliveries each worker process makes before the timed backlog (see workers()).
export const warmUpPerProcess = a.num('warm-up', a.quick ? 1000 : 2000);
export const CONNECTIONS = 32;
// Which of the three tables to measure (all by default; `--cases slow` for the 50 ms rows alone).
export const cases = new Set((a.str('cases') ?? 'api,workers,slow,slow64').split(','));
// Process counts to run (all three by default; ratios need 1).
export const processCounts = (a.str('processes') ?? '1,2,4').split(',').map(Number);
// pg_stat_statements' view of the claim over each timed part, on stderr (`--statements`).
export const statements = a.has('statements');
export const url = requireDatabaseUrl(
  'the benchmark creates and drops schemas bench_scale_api and bench_scale_wh',
);
export const API_KEY = 'sk_bench_0123456789abcdef';
export const dbName = decodeURIComponent(new URL(url).pathname.slice(1));
export const cli = fileURLToPath(new URL('../../apps/server/dist/cli.js', import.meta.url));

export async function count(text: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const { rows } = await c.query<{ n: string }>(text);
  await c.end();
  return Number(rows[0]!.n);
}

export const stop = (child: ChildProcess) =>
  new Promise<void>((r) => {
    if (child.exitCode !== null) return r();
    child.once('exit', () => r());
    child.kill('SIGTERM');
  });
