// The effects outbox's engine, chosen by a measurement (issue 32): Surety's own (a small effects
// table claimed with `for update skip locked`, packages/idempotency/src/effects) against pg-boss 10,
// a well-kept PostgreSQL queue, side by side in one run, alternating the order each round.
//
// Each engine does the same work, in the outbox's shape:
// - enqueue: ENQUEUE business transactions, 10 at a time on a pool of 10, each inserting a business
//   row and enqueueing one effect in the same transaction (pg-boss: `send` with `db` on the
//   transaction).
// - drain: the N effects enqueued, each run (an instant provider: one `setImmediate`) and its
//   result recorded with a follow-up write (a ledger row) in one transaction. Surety: the result and
//   the follow-up commit together (the effect row is the record). pg-boss: the follow-up and a result
//   row in a transaction of ours, then pg-boss completes the job in its own statement (not atomic
//   with it: a crash between the two re-runs the job, so the follow-up must itself be idempotent).
// Measured: effects (or transactions) per second, and CPU per effect by process (this process, the
// PostgreSQL server) from /proc. Without DATABASE_URL it starts a cluster of its own (lib/cluster).
// Run: /work/bin/testslot --exclusive node --conditions=@surety/source --import tsx bench/effects/compare.ts [--n 3000] [--rounds 2]
import { openSql, type Sql } from '@surety/db';
import { createEffects, defineEffect } from '@surety/idempotency/effects';
import PgBoss from 'pg-boss';
import { startCluster } from '../lib/cluster.js';
import { cpuDelta, cpuSnapshot, postgresServer, usPerOperation } from '../lib/cpu.js';
import { adminQuery, args, median, round } from '../lib/stats.js';

const a = args();
const N = a.num('n', a.quick ? 1000 : 3000);
const ROUNDS = a.num('rounds', a.quick ? 1 : 2);
const CONCURRENCY = 16;
const cluster = process.env.DATABASE_URL ? undefined : await startCluster();
const url = process.env.DATABASE_URL ?? (await cluster!.createDatabase('bench_effects'));
const pg = await postgresServer(url);
const classify = (cmdline: string, pid: number, ppid: number) =>
  pid === process.pid ? 'node' : pg(cmdline, pid, ppid);
const tick = () => new Promise<void>((r) => setImmediate(r));

interface Run {
  enqueuePerS: number;
  enqueueUs: Record<string, number> | undefined;
  effectsPerS: number;
  drainUs: Record<string, number> | undefined;
}

/** ENQUEUE transactions, `lanes` at a time, each running `one(i)`. */
async function lanes(count: number, one: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (next < count) await one(next++);
    }),
  );
}

async function measure(enqueue: () => Promise<void>, drain: () => Promise<void>): Promise<Run> {
  let before = cpuSnapshot(classify);
  let t0 = performance.now();
  await enqueue();
  const enqueuePerS = N / ((performance.now() - t0) / 1000);
  const enqueueUs = usPerOperation(cpuDelta(before, cpuSnapshot(classify)), N);
  before = cpuSnapshot(classify);
  t0 = performance.now();
  await drain();
  const effectsPerS = N / ((performance.now() - t0) / 1000);
  const drainUs = usPerOperation(cpuDelta(before, cpuSnapshot(classify)), N);
  return { enqueuePerS, enqueueUs, effectsPerS, drainUs };
}

const BUSINESS = (schema: string) => `create table ${schema}.orders (id int primary key, note text);
  create table ${schema}.ledger (effect text not null, result text not null)`;

async function surety(): Promise<Run> {
  const schema = 'bench_effects_surety';
  await adminQuery(url, `drop schema if exists ${schema} cascade`);
  const sql: Sql = await openSql({ databaseUrl: url, max: 10 });
  let done = 0;
  let resolveDone: () => void = () => {};
  const allDone = new Promise<void>((r) => (resolveDone = r));
  const effect = defineEffect<{ order: number }, { ok: string }>({
    name: 'bench.effect',
    run: async ({ derivedKey }) => {
      await tick();
      return { ok: derivedKey.slice(0, 8) };
    },
    onSucceeded: async (tx, result, { key }) => {
      await tx.query(`insert into ${schema}.ledger values ($1, $2)`, [key, result.ok]);
    },
  });
  const effects = createEffects({ sql, schema, effects: [effect], budget: false });
  await effects.migrate();
  for (const s of BUSINESS(schema).split(';')) await sql.query(s);
  const worker = effects.worker({
    concurrency: CONCURRENCY,
    intervalMs: 50,
    onOutcome: (o) => {
      if (o.kind === 'succeeded' && ++done === N) resolveDone();
    },
  });
  const run = await measure(
    () =>
      lanes(N, (i) =>
        sql.transaction(async (tx) => {
          await tx.query(`insert into ${schema}.orders values ($1, 'x')`, [i]);
          await effects.enqueue(tx, { tenant: 'bench', effect, key: `order-${i}`, payload: { order: i } });
        }),
      ),
    async () => {
      worker.start();
      await allDone;
      await worker.stop();
    },
  );
  await sql.close();
  await adminQuery(url, `drop schema if exists ${schema} cascade`);
  return run;
}

async function pgboss(): Promise<Run> {
  const schema = 'bench_effects_boss';
  await adminQuery(
    url,
    `drop schema if exists ${schema} cascade; drop schema if exists ${schema}_pgboss cascade`,
  );
  const sql: Sql = await openSql({ databaseUrl: url, max: 10 });
  await sql.query(`create schema ${schema}`);
  for (const s of BUSINESS(schema).split(';')) await sql.query(s);
  const boss = new PgBoss({ connectionString: url, schema: `${schema}_pgboss`, max: 10 });
  boss.on('error', () => {});
  await boss.start();
  await boss.createQueue('effect');
  let done = 0;
  let resolveDone: () => void = () => {};
  const allDone = new Promise<void>((r) => (resolveDone = r));
  const run = await measure(
    () =>
      lanes(N, (i) =>
        sql.transaction(async (tx) => {
          await tx.query(`insert into ${schema}.orders values ($1, 'x')`, [i]);
          await boss.send(
            'effect',
            { order: i, key: `order-${i}` },
            { db: { executeSql: (text, values) => tx.query(text, values) } },
          );
        }),
      ),
    async () => {
      // pg-boss 10 fetches a batch, runs the handler, completes the batch, then waits out its
      // polling interval (0.5 s at least): its throughput shape is large batches; two loops, each
      // batch run CONCURRENCY / 2 at a time (CONCURRENCY in flight in all, as Surety's worker).
      for (let loop = 0; loop < 2; loop++)
        await boss.work<{ order: number; key: string }>(
          'effect',
          { batchSize: 500, pollingIntervalSeconds: 0.5 },
          async (jobs) => {
            let next = 0;
            await Promise.all(
              Array.from({ length: CONCURRENCY / 2 }, async () => {
                while (next < jobs.length) {
                  const job = jobs[next++]!;
                  await tick();
                  await sql.transaction(async (tx) => {
                    await tx.query(`insert into ${schema}.ledger values ($1, $2)`, [job.data.key, job.id]);
                  });
                  if (++done === N) resolveDone();
                }
              }),
            );
          },
        );
      await allDone;
      // Until pg-boss has completed every job (its completion is a statement of its own, after the handler).
      const until = Date.now() + 60_000;
      while ((await boss.getQueueSize('effect', { before: 'completed' })) > 0 && Date.now() < until)
        await new Promise((r) => setTimeout(r, 20));
    },
  );
  await boss.stop({ graceful: false, wait: true }).catch(() => {});
  await sql.close();
  await adminQuery(
    url,
    `drop schema if exists ${schema} cascade; drop schema if exists ${schema}_pgboss cascade`,
  );
  return run;
}

const engines = { surety, 'pg-boss': pgboss } as const;
type Engine = keyof typeof engines;
const runs: Record<Engine, Run[]> = { surety: [], 'pg-boss': [] };
// A warm-up of each, not counted.
for (const name of Object.keys(engines) as Engine[]) await engines[name]();
for (let r = 0; r < ROUNDS; r++) {
  const order = (Object.keys(engines) as Engine[])[r % 2 === 0 ? 'slice' : 'reverse']();
  for (const name of order) runs[name].push(await engines[name]());
}
const sum = (us: Record<string, number> | undefined) => Object.values(us ?? {}).reduce((x, y) => x + y, 0);
const summary = Object.fromEntries(
  (Object.keys(engines) as Engine[]).map((name) => {
    const rs = runs[name];
    const mid = [...rs].sort((x, y) => sum(x.drainUs) - sum(y.drainUs))[Math.floor((rs.length - 1) / 2)]!;
    return [
      name,
      {
        enqueuePerS: round(median(rs.map((x) => x.enqueuePerS)), 0),
        enqueueCpuUs: Object.fromEntries(
          Object.entries(mid.enqueueUs ?? {}).map(([k, v]) => [k, round(v, 0)]),
        ),
        effectsPerS: round(median(rs.map((x) => x.effectsPerS)), 0),
        drainCpuUs: Object.fromEntries(Object.entries(mid.drainUs ?? {}).map(([k, v]) => [k, round(v, 0)])),
        rounds: rs.map((x) => ({
          effectsPerS: round(x.effectsPerS, 0),
          drainCpuUs: round(sum(x.drainUs), 0),
        })),
      },
    ];
  }),
);
process.stdout.write(
  `${JSON.stringify({ benchmark: 'effects/compare', n: N, rounds: ROUNDS, concurrency: CONCURRENCY, server: cluster ? 'own cluster' : 'DATABASE_URL', ...summary }, null, 2)}\n`,
);
cluster?.stop();
