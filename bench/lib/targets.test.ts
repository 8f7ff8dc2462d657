// The targets table (issues 22 and 35): a verdict that cannot pass by accident, pg-boss's best setting by CPU,
// and the measured reason printed beside each ratio.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cheapest, cpuSum, detailOf, meets, TARGETS, verdictOf } from './targets.js';

test('a ≤ target is missed above it and met at or below it; ≥ the other way round', () => {
  assert.equal(verdictOf([2.1], '<=', 2), 'MISS');
  assert.equal(verdictOf([2], '<=', 2), 'PASS');
  assert.equal(verdictOf([0.84], '>=', 0.85), 'MISS');
  assert.equal(verdictOf([0.85], '>=', 0.85), 'PASS');
});

test('a row of two ratios is met only when both are; NaN or a missing ratio is a miss', () => {
  assert.equal(verdictOf([1.2, 1.6], '<=', 1.5), 'MISS');
  assert.equal(verdictOf([1.2, 1.4], '<=', 1.5), 'PASS');
  assert.equal(verdictOf([Number.NaN], '<=', 2), 'MISS');
  assert.equal(verdictOf([Number.NaN], '>=', 0), 'MISS');
  assert.equal(verdictOf([1, undefined], '<=', 2), 'MISS');
  assert.equal(verdictOf([undefined], '<=', 2), 'not run');
  assert.equal(verdictOf([], '<=', 2), 'not run');
  assert.equal(meets(Number.POSITIVE_INFINITY, '>=', 1), false);
});

test("the table judges the delivery path by issue 35's targets, the rest by issue 22's, and says whose", () => {
  assert.deepEqual(
    TARGETS.map((t) => [t.ratios.join(' and '), t.op, t.target, t.issue]),
    [
      ['growth.purge', '<=', 1.1, 22],
      ['delivery.cpu_vs_ceiling', '<=', 2.5, 35],
      ['delivery.worker_cpu_vs_client', '<=', 2, 35],
      ['delivery.cpu_vs_pgboss_same_post', '<=', 0.8, 35],
      ['delivery.vs_pgboss', '>=', 1, 35],
      ['delivery.p99_at_half', '<=', 50, 35],
      ['growth.deliveries', '<=', 1.5, 35],
      ['idempotency.surety', '>=', 0.85, 22],
      ['growth.keys and growth.replay', '<=', 1.5, 22],
      ['scale.slow.2', '>=', 1.8, 22],
    ],
  );
});

test("pg-boss's best setting is the one with the lowest CPU per job in all its processes", () => {
  const byBatch = {
    '2000': { 'pg-boss': 60, postgres: 50, receiver: 40 }, // 150
    '32': { 'pg-boss': 30, postgres: 200, receiver: 40 }, // 270, though its own process is cheaper
    none: undefined,
  };
  assert.equal(cheapest(byBatch), '2000');
  assert.equal(cheapest({}), undefined);
  assert.equal(cpuSum(byBatch['2000'], ['pg-boss', 'receiver']), 100);
  assert.ok(Number.isNaN(cpuSum(undefined)));
});

test("the pg-boss row judges pg-boss doing Surety's signed POST; its bare POST is shown beside it, not judged", () => {
  const row = TARGETS.find((t) => t.ratios.some((r) => r.startsWith('delivery.cpu_vs_pgboss')))!;
  assert.deepEqual(row.ratios, ['delivery.cpu_vs_pgboss_same_post']);
  assert.match(row.measure, /same POST \(Surety's body and signed headers/);
  const metrics: Record<string, { median: number; unit: string }> = {
    'cpu.surety.worker': { median: 140, unit: 'µs' },
    'cpu.surety.postgres': { median: 160, unit: 'µs' },
    'cpu.pgboss_best.pg-boss': { median: 70, unit: 'µs' },
    'cpu.pgboss_best.postgres': { median: 60, unit: 'µs' },
    'pgboss.best_batch': { median: 2000, unit: 'jobs per fetch' },
    'cpu.pgboss_bare.pg-boss': { median: 50, unit: 'µs' },
    'cpu.ceiling.client': { median: 40, unit: 'µs' },
  };
  assert.equal(
    detailOf(row, Object.keys(metrics), (n) => metrics[n], String),
    'Surety: postgres 160 + worker 140 = 300 µs; pg-boss at its best: pg-boss 70 + postgres 60 = 130 µs; ' +
      'its batch size 2000 jobs per fetch; pg-boss, bare POST: pg-boss 50 µs; a bare POST (ceiling): client 40 µs',
  );
});

test('the measured reason lists the CPU by process, largest first, with the sum', () => {
  const metrics: Record<string, { median: number; unit: string }> = {
    'cpu.surety.worker': { median: 168, unit: 'µs' },
    'cpu.surety.postgres': { median: 173, unit: 'µs' },
    'cpu.surety.receiver': { median: 48, unit: 'µs' },
    'cpu.ceiling.client': { median: 41, unit: 'µs' },
    'cpu.ceiling.receiver': { median: 33, unit: 'µs' },
    'cpu.surety_other.worker': { median: 1, unit: 'µs' },
  };
  const row = TARGETS.find((t) => t.ratios[0] === 'delivery.cpu_vs_ceiling')!;
  assert.equal(
    detailOf(row, Object.keys(metrics), (n) => metrics[n], String),
    'Surety: postgres 173 + worker 168 + receiver 48 = 389 µs; ceiling: client 41 + receiver 33 = 74 µs',
  );
  const worker = TARGETS.find((t) => t.ratios[0] === 'delivery.worker_cpu_vs_client')!;
  assert.equal(
    detailOf(worker, Object.keys(metrics), (n) => metrics[n], String),
    'worker 168 µs; undici client 41 µs',
  );
  assert.equal(
    detailOf(worker, [], () => undefined, String),
    '',
  );
});

test("the purge's row shows its rounds' spread and the before-windows' A/A spread beside the ratio", () => {
  const metrics: Record<string, { median: number; unit: string }> = {
    'purge.p99_before': { median: 2.65, unit: 'ms' },
    'purge.p99_during': { median: 3.1, unit: 'ms' },
    'purge.rounds_min': { median: 0.9, unit: '×' },
    'purge.rounds_max': { median: 1.6, unit: '×' },
    'purge.aa_min': { median: 0.7, unit: '×' },
    'purge.aa_max': { median: 1.2, unit: '×' },
  };
  const row = TARGETS.find((t) => t.ratios[0] === 'growth.purge')!;
  assert.equal(
    detailOf(row, Object.keys(metrics), (n) => metrics[n], String),
    'before 2.65 ms; during 3.1 ms; rounds from 0.9 ×; to 1.6 ×; A/A halves of the before-windows from 0.7 ×; to 1.2 ×',
  );
});
