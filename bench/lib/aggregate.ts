// bench/run.ts's aggregates over the runs of each benchmark: median and min–max of each ratio and
// metric, and how the report prints a number and a verdict.

import type { BenchResult } from './result.js';
import type { Run } from './run-once.js';
import { median } from './stats.js';
import { verdictOf } from './targets.js';

export interface Agg {
  values: number[];
  median: number;
  min: number;
  max: number;
}
export const agg = (values: number[]): Agg => ({
  values,
  median: median(values),
  min: Math.min(...values),
  max: Math.max(...values),
});

/** Each benchmark's ratios and metrics, aggregated over its runs. */
export function aggregates(results: ReadonlyMap<string, Run[]>) {
  const ratiosOf = (name: string) => {
    const runs = (results.get(name) ?? []).map((r) => r.result).filter((r): r is BenchResult => !!r);
    const byName = new Map<string, { ratio: BenchResult['ratios'][number]; values: number[] }>();
    for (const r of runs)
      for (const ratio of r.ratios) {
        const e = byName.get(ratio.name) ?? { ratio, values: [] };
        // A ratio that could not be computed (NaN) arrives as null in the JSON.
        e.values.push(typeof ratio.value === 'number' ? ratio.value : Number.NaN);
        byName.set(ratio.name, e);
      }
    return [...byName.values()].map((e) => ({ ...e.ratio, ...agg(e.values) }));
  };
  const metricsOf = (bench: string) => (results.get(bench) ?? []).flatMap((r) => r.result?.metrics ?? []);
  const metricOf = (bench: string, metric: string): (Agg & { unit: string }) | undefined => {
    const found = metricsOf(bench).filter((x) => x.name === metric);
    const values = found.map((x) => (typeof x.value === 'number' ? x.value : Number.NaN));
    return values.length ? { ...agg(values), unit: found[0]!.unit } : undefined;
  };
  return { ratiosOf, metricsOf, metricOf };
}

export const f = (n: number) =>
  !Number.isFinite(n)
    ? '—'
    : Math.abs(n) >= 100
      ? n.toFixed(0)
      : Math.abs(n) >= 10
        ? n.toFixed(1)
        : n.toFixed(2);
export const verdict = (r: { target?: number; op?: '<=' | '>='; median: number }) =>
  r.target === undefined ? 'info' : `**${verdictOf([r.median], r.op ?? '>=', r.target)}**`;
export const sign = (op: '<=' | '>=' | undefined) => (op === '<=' ? '≤' : '≥');
