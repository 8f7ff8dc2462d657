// bench/scale's worker cases: 1, 2 or 4 `surety worker` processes draining a backlog to one receiver
// (answering at once or in 50 ms), with receipts == deliveries == attempts after each run.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { notifyChannel } from '@surety/webhooks/testing';
import pg from 'pg';
import { cpuDelta, cpuSnapshot, usPerOperation } from '../lib/cpu.js';
import { startReceiver } from '../lib/receiver.js';
import { adminQuery } from '../lib/stats.js';
import { OPEN_CAPS, spawnSuretyWorker } from '../lib/worker.js';
import {
  count,
  DEFAULT_IN_FLIGHT,
  dbName,
  fastBacklog,
  slowBacklog,
  slowSeconds,
  statements,
  stop,
  url,
  warmUpPerProcess,
} from './setup.js';

/** Busy and total jiffies of every core, from /proc/stat (undefined without /proc). */
function boxCpu(): { busy: number; total: number } | undefined {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = f.slice(0, 8).reduce((x, y) => x + y, 0);
    return { busy: total - f[3]! - f[4]!, total }; // idle and iowait are not busy
  } catch {
    return undefined;
  }
}

export async function workers(processes: number, receiverDelayMs = 0, inFlight = DEFAULT_IN_FLIGHT) {
  await adminQuery(url, 'drop schema if exists bench_scale_wh cascade');
  const receiver = await startReceiver(receiverDelayMs);
  const { port } = receiver;
  const backlog =
    receiverDelayMs === 0
      ? fastBacklog
      : inFlight === DEFAULT_IN_FLIGHT
        ? slowBacklog
        : Math.round(((slowSeconds * processes * inFlight * 1000) / receiverDelayMs) * 0.9);
  // Schema and endpoint through the library, then the backlog in one bulk statement.
  const { createPgSql } = await import('@surety/db');
  const { Webhooks, parseAllowList } = await import('@surety/webhooks');
  const sql = createPgSql({ connectionString: url, max: 2 });
  const webhooks = new Webhooks({
    sql,
    schema: 'bench_scale_wh',
    allowHttp: true,
    allowList: parseAllowList('127.0.0.1/32'),
  });
  await webhooks.migrate();
  const { endpoint } = await webhooks.createEndpoint(sql, {
    tenant: 'bench',
    url: `http://127.0.0.1:${port}/hooks`,
    eventTypes: ['*'],
  });
  // The history partitions the service keeps ahead (its defaults: 1-day windows, 7 ahead), made now:
  // each worker runs this maintenance when it starts, in the background, and on a fresh schema its
  // CREATE TABLEs (up to a second each here, under locks on the parent tables) ran into the timed
  // part, stalling the claims, once per worker process.
  await webhooks.maintain({ retentionDays: 30 });
  const children = await Promise.all(
    Array.from({ length: processes }, () =>
      spawnSuretyWorker('bench_scale_wh', { ...OPEN_CAPS, SURETY_WEBHOOK_CONCURRENCY: String(inFlight) }),
    ),
  );
  // CPU per delivery: the workers, the receiver, and the bench database's backends (its WAL writer
  // and other background processes are not told apart from other clusters' on a shared machine).
  const workerPids = new Set(children.map((c) => c.pid));
  const classify = (cmdline: string, pid: number) =>
    workerPids.has(pid)
      ? 'worker'
      : cmdline.includes('delivery/receiver.ts')
        ? 'receiver'
        : cmdline.startsWith('postgres:') && cmdline.includes(` ${dbName} `)
          ? 'postgres'
          : undefined;
  // A backlog of `n` deliveries in one transaction (events `<prefix>_<i>`), then the wake-up.
  const load = (n: number, prefix: string, from: number) =>
    sql.transaction(async (tx) => {
      await tx.query(
        `insert into bench_scale_wh.webhook_events (tenant, id, type, api_version, sequence, data, created_at)
         select 'bench', $2 || i, 'order.created', '2026-01-01', i, '{"i":' || i || ',"pad":"' || repeat('x', 200) || '"}', now()
           from generate_series($3::int, $3::int + $1::int - 1) i`,
        [n, `${prefix}_`, from],
      );
      await tx.query(
        `insert into bench_scale_wh.webhook_deliveries (tenant, endpoint_id, event_id, status, next_attempt_at, created_at)
         select 'bench', $2, $3 || i, 'pending', now(), now() from generate_series($4::int, $4::int + $1::int - 1) i`,
        [n, endpoint.id, `${prefix}_`, from],
      );
      await tx.query('select pg_notify($1, $2)', [notifyChannel('bench_scale_wh'), '']);
    });
  // Warm-up, untimed: each new worker process first runs its delivery path unoptimised (V8 compiles
  // the hot functions after some thousands of calls), and with more processes a larger share of a
  // short run was that start (worker CPU per delivery rose with the process count).
  const warm = warmUpPerProcess * processes;
  await load(warm, 'wrm', backlog + 1);
  await receiver.waitFor(warm, 120_000);
  await receiver.reset();
  // The clock starts when the backlog commits (no worker can see a row before): the bulk insert
  // itself (a few hundred ms for 6,000 events) is not delivery time, and counting it shrank the
  // many-worker rates more than the one-worker rate (the same constant on a shorter run).
  if (statements) await adminQuery(url, 'select pg_stat_statements_reset()');
  await load(backlog, 'evt', 1);
  const started = performance.now();
  const startedAt = new Date();
  const cpuBefore = cpuSnapshot(classify);
  const boxBefore = boxCpu();
  await receiver.waitFor(backlog, 300_000);
  const wallMs = performance.now() - started;
  const rate = backlog / (wallMs / 1000);
  const cpuMs = cpuDelta(cpuBefore, cpuSnapshot(classify));
  const boxAfter = boxCpu();
  const cpu = usPerOperation(cpuMs, backlog);
  // Shares of all the machine's cores over the timed part: every process (box), and the benchmark's.
  const box =
    boxBefore && boxAfter
      ? (boxAfter.busy - boxBefore.busy) / (boxAfter.total - boxBefore.total)
      : Number.NaN;
  const own = cpuMs
    ? Object.values(cpuMs).reduce((x, y) => x + y, 0) / (wallMs * availableParallelism())
    : Number.NaN;
  // Slot occupancy: the timed attempts' own durations ÷ (slots × time).
  const busyMs = await count(
    `select coalesce(sum(duration_ms), 0)::text as n from bench_scale_wh.webhook_attempts where started_at >= '${startedAt.toISOString()}'`,
  );
  const slots = busyMs / (processes * inFlight * wallMs);
  if (statements) {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const { rows } = await c.query<{ calls: string; mean: number; total: number; rows: string; q: string }>(
      `select calls::text, mean_exec_time as mean, total_exec_time as total, rows::text,
              left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 70) as q
         from pg_stat_statements where calls >= 5 and query not like '%pg_stat_statements%'
        order by total_exec_time desc limit 12`,
    );
    await c.end();
    console.error(
      `  statements, workers ×${processes} in flight ${inFlight} (calls, mean ms, total ms, rows):`,
    );
    for (const r of rows)
      console.error(`    ${r.calls}\t${r.mean.toFixed(2)}\t${r.total.toFixed(0)}\t${r.rows}\t${r.q}`);
  }
  await Promise.all(children.map(stop));
  const receipts = await receiver.count();
  const attempts = await count('select count(*)::text as n from bench_scale_wh.webhook_attempts');
  const delivered = await count(
    `select count(*)::text as n from bench_scale_wh.webhook_deliveries where status = 'delivered'`,
  );
  receiver.close();
  await sql.close();
  await adminQuery(url, 'drop schema if exists bench_scale_wh cascade');
  const check = receipts === backlog && attempts === backlog + warm && delivered === backlog + warm;
  console.error(
    `workers ×${processes} (receiver ${receiverDelayMs} ms, ${inFlight} in flight each): ${rate.toFixed(0)} deliveries/s; box CPU ${(box * 100).toFixed(0)}% (bench ${(own * 100).toFixed(0)}%), slots busy ${(slots * 100).toFixed(0)}%; receipts ${receipts}, attempts ${attempts}, delivered ${delivered} (${warm} of them the warm-up's)`,
  );
  return {
    processes,
    rate,
    receipts,
    attempts,
    delivered,
    check,
    receiverDelayMs,
    inFlight,
    cpu,
    box,
    own,
    slots,
    backlog,
  };
}
