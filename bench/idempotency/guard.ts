// What the naive-ORM guard (warnOnEmptyTransaction, on by default outside production) costs: the
// engine's execute() with a one-insert handler, guard on ÷ off, side by side in alternating rounds on
// one pool, so noise on the machine hits both. The guard is one statement
// (`select pg_current_xact_id_if_assigned() is null`) per 2xx before the key is stored.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench node --conditions=@surety/source --import tsx bench/idempotency/guard.ts [--quick]
// (PGlite without DATABASE_URL.) Alone, not in bench/run.ts. Bounded: rounds × requests per round.
import { createTestDatabase } from '@surety/db/testing';
import { createIdempotency } from '@surety/idempotency';
import { emitResult } from '../lib/result.js';
import { args } from '../lib/stats.js';

const a = args();
const ROUNDS = a.num('rounds', a.quick ? 3 : 6);
const REQUESTS = a.num('requests', a.quick ? 1000 : 3000);
const CONCURRENCY = a.num('concurrency', 16);

const db = await createTestDatabase({ max: 10 });
await db.sql.query(`create schema if not exists "${db.schema}"`);
await db.sql.query(`create table "${db.schema}".payments (id text primary key, cents int not null)`);
const engines = {
  off: createIdempotency({ sql: db.sql, schema: db.schema, warnOnEmptyTransaction: false }),
  on: createIdempotency({
    sql: db.sql,
    schema: db.schema,
    warnOnEmptyTransaction: true,
    onWarning: () => {},
  }),
};
await engines.off.migrate();

let n = 0;
async function round(mode: 'on' | 'off'): Promise<number> {
  const engine = engines[mode];
  const started = performance.now();
  let next = 0;
  const lane = async () => {
    while (next < REQUESTS) {
      next++;
      const id = `${mode}-${++n}`;
      await engine.execute({ tenant: 'bench', key: id, fingerprint: 'fp' }, async (tx) => {
        await tx.query(`insert into "${db.schema}".payments values ($1, $2)`, [id, 1999]);
        return { status: 201, headers: { 'content-type': 'application/json' }, body: `{"id":"${id}"}` };
      });
    }
  };
  await Promise.all(Array.from({ length: db.backend === 'pg' ? CONCURRENCY : 1 }, lane));
  return REQUESTS / ((performance.now() - started) / 1000);
}

await round('off'); // warm-up: plans, pool, JIT
const rates: Record<'on' | 'off', number[]> = { on: [], off: [] };
for (let r = 0; r < ROUNDS; r++) {
  for (const mode of r % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
    rates[mode].push(await round(mode));
  }
}
await db.close();

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const off = median(rates.off);
const on = median(rates.on);
const usPerRequest = (1e6 / on - 1e6 / off) * (db.backend === 'pg' ? CONCURRENCY : 1);
console.log(`| backend | lanes | guard off | guard on | on ÷ off | added per request |`);
console.log(`| --- | --- | --- | --- | --- | --- |`);
console.log(
  `| ${db.backend} | ${db.backend === 'pg' ? CONCURRENCY : 1} | ${off.toFixed(0)} req/s | ${on.toFixed(0)} req/s | ${(on / off).toFixed(2)} | ${usPerRequest.toFixed(0)} µs of latency |`,
);
emitResult({
  bench: 'idempotency-guard',
  metrics: [
    { name: 'guard.off.rps', value: off, unit: 'req/s' },
    { name: 'guard.on.rps', value: on, unit: 'req/s' },
  ],
  ratios: [{ name: 'guard.on/off', value: on / off, what: 'warnOnEmptyTransaction on ÷ off' }],
});
