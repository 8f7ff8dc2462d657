// The charts of bench/run.ts's report (svg.ts): bars of the throughputs and the claim latencies, and the
// delivery latency against the publish rate; written to `chartDir`, listed by benchmark.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Agg } from './aggregate.js';
import type { Run } from './run-once.js';
import { barChart, lineChart } from './svg.js';

/** Writes the charts; the files written, by benchmark. */
export function writeCharts(
  chartDir: string,
  results: ReadonlyMap<string, Run[]>,
  metricOf: (bench: string, metric: string) => Agg | undefined,
): Record<string, string[]> {
  const charts: Record<string, string[]> = {};
  const addChart = (bench: string, file: string) => {
    charts[bench] = [...(charts[bench] ?? []), file];
  };
  const bar = (
    bench: string,
    file: string,
    title: string,
    unit: string,
    rows: [string, string, number?][],
  ) => {
    const bars = rows
      .map(([label, metric, group]) => {
        const a = metricOf(bench, metric);
        return a ? { label, value: a.median, min: a.min, max: a.max, group } : undefined;
      })
      .filter((b) => b !== undefined);
    if (bars.length === 0) return;
    writeFileSync(join(chartDir, file), barChart(title, unit, bars));
    addChart(bench, file);
  };
  bar(
    'idempotency',
    'idempotency-throughput.svg',
    'POST /v1/payments throughput (median, whiskers: min–max)',
    'requests/s',
    [
      ['Surety, no idempotency (baseline)', 'surety-off.rps', 0],
      ['Surety, idempotency on', 'surety-on.rps', 0],
      ['Express, no middleware (baseline)', 'express-off.rps', 1],
      ['Express + express-idempotency (Redis)', 'express-on.rps', 1],
    ],
  );
  bar(
    'delivery',
    'delivery-throughput.svg',
    'Webhook deliveries/s to a local receiver (median, min–max)',
    'deliveries/s',
    [
      ['undici POST loop (ceiling)', 'ceiling.rate', 5],
      ['Surety outbox + DeliveryWorker', 'surety.rate', 0],
      ['pg-boss 10, batches of 2,000', 'pgboss.rate', 1],
      ['pg-boss 10, batches of 32', 'pgboss32.rate', 1],
      ['graphile-worker 0.16.6', 'graphile.rate', 2],
    ],
  );
  bar(
    'scale',
    'scale-throughput.svg',
    'Scale-out on one PostgreSQL (median, min–max)',
    'requests/s or deliveries/s',
    [
      ['1 API process (POST req/s)', 'api.1.rps', 0],
      ['2 API processes', 'api.2.rps', 0],
      ['4 API processes', 'api.4.rps', 0],
      ['1 worker process (deliveries/s)', 'workers.1.rate', 1],
      ['2 worker processes', 'workers.2.rate', 1],
      ['4 worker processes', 'workers.4.rate', 1],
    ],
  );
  bar('growth', 'growth-claim.svg', 'Claim latency p50 as the tables grow', 'ms (median of samples)', [
    ['idempotency claim, small table', 'keys.small.p50', 0],
    ['idempotency claim, large table', 'keys.large.p50', 0],
    ['delivery claim, small backlog', 'deliveries.small.p50', 1],
    ['delivery claim, 1 M pending', 'deliveries.large.p50', 1],
  ]);
  {
    const runs = results.get('delivery') ?? [];
    const series: Record<string, [number, number][]> = {};
    for (const r of runs)
      for (const [name, points] of Object.entries(r.result?.series ?? {}))
        series[name] = [...(series[name] ?? []), ...points];
    if (Object.keys(series).length) {
      writeFileSync(
        join(chartDir, 'delivery-latency.svg'),
        lineChart(
          'Surety publish→delivery latency against publish rate (every run)',
          'events/s published (one per transaction)',
          'ms',
          series,
        ),
      );
      addChart('delivery', 'delivery-latency.svg');
    }
  }
  return charts;
}
