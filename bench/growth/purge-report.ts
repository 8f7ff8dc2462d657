// What bench/growth/purge.ts prints: a row per run, a row per variant, and each run's diagnostics.
import { median, percentile, roundRatios } from '../lib/stats.js';
import type { PurgeRun } from './purge-serve.js';

/** A run's diagnostics, one markdown line each. */
export function describeDiagnostics(r: PurgeRun): string[] {
  const d = r.diag;
  if (!d) return [];
  const share = (ph: 'before' | 'during' | 'after') =>
    Object.entries(d.cpu[ph])
      .filter(([, ms]) => ms >= 50)
      .sort((a, b) => b[1] - a[1])
      .map(([k, ms]) => `${k} ${((ms / 1000 / Math.max(d.phaseSeconds[ph], 1e-9)) * 100).toFixed(0)}%`)
      .join(', ');
  const waits = Object.entries(d.waits)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return [
    `- ${r.variant}: server CPU (share of a core) before: ${share('before')}; during: ${share('during')}; after: ${share('after')}`,
    `  serving backends seen active during the purge (${d.waitSamples} samples): ${waits || 'none'}`,
    `  vacuum of the key table: ${d.vacuum ? `${d.vacuum.from.toFixed(1)}–${d.vacuum.to.toFixed(1)} s after the purge started (${d.vacuum.phases.join(' → ')}); p99 during while it ran ${d.p99WhileVacuum?.toFixed(2) ?? '–'} ms, while it did not ${d.p99WithoutVacuum?.toFixed(2) ?? '–'} ms` : 'not seen'}`,
    ...(d.statements.length
      ? [
          `  top statements during: ${d.statements
            .slice(0, 5)
            .map((q) => `[${q.calls}× mean ${q.meanMs.toFixed(2)} max ${q.maxMs.toFixed(1)} ms] ${q.query}`)
            .join(' | ')}`,
        ]
      : []),
  ];
}

/** The markdown tables of a side-by-side run: every run, then each variant over its runs. */
export function printPurgeTables(
  results: readonly PurgeRun[],
  variants: readonly string[],
  p: { keys: number; rounds: number; beforeMs: number; runs: number; load: number },
) {
  const { keys, rounds, beforeMs, runs, load } = p;
  const f = (x: number) => x.toFixed(2);
  console.log(
    `Purge of ${keys.toLocaleString('en-US')} expired keys while serving new keys 4 at a time, in ${rounds} rounds (a ${beforeMs / 1000} s before-window, then a purge call for its share); ${runs} runs alternating; load average at start ${load.toFixed(1)}.\n`,
  );
  console.log(
    '| variant | run | load | purge s | rows/s | purge backend CPU (share of a core) | requests before / during | p99 before (pooled) | p99 during (pooled) | during ÷ before by round | median | before halves (A/A) by round | before requests left out (vacuum) | p99 after ÷ before | WAL MB | FPI | WAL syncs | autovacuum during / by the end |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  const seen: Record<string, number> = {};
  for (const r of results) {
    seen[r.variant] = (seen[r.variant] ?? 0) + 1;
    const b = percentile(r.before, 99);
    const rr = roundRatios(r.rounds);
    console.log(
      `| ${r.variant} | ${seen[r.variant]} | ${r.load?.toFixed(1) ?? '–'} | ${r.seconds.toFixed(1)} | ${(r.purged / r.seconds).toFixed(0)} | ${r.purgeCpuMs === undefined ? '–' : `${(r.purgeCpuMs / 1000).toFixed(1)} s (${((r.purgeCpuMs / 1000 / r.seconds) * 100).toFixed(0)}%)`} | ${r.before.length} / ${r.during.length} | ${f(b)} | ${f(percentile(r.during, 99))} | ${rr.ratios.map(f).join(', ')} | ${f(rr.median)} | ${rr.aa.map(f).join(', ')} | ${r.rounds.reduce((n, x) => n + x.beforeWhileVacuum, 0)} | ${f(percentile(r.after, 99) / b)} | ${r.wal ? (r.wal.bytes / 2 ** 20).toFixed(0) : '–'} | ${r.wal?.fpi ?? '–'} | ${r.wal?.syncs ?? '–'} | ${r.autovacuumedDuring ? 'during' : r.autovacuumed ? 'after' : 'no'} |`,
    );
  }
  console.log(
    '\n| variant | runs | median of the runs’ medians | rounds: min–max | before halves (A/A): min–max | WAL MB | FPI |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const name of variants) {
    const rs = results.filter((r) => r.variant === name);
    const all = rs.flatMap((r) => r.rounds);
    const rr = roundRatios(all);
    const mb = rs.map((r) => (r.wal ? r.wal.bytes / 2 ** 20 : Number.NaN));
    console.log(
      `| ${name} | ${rs.length} | ${f(median(rs.map((r) => roundRatios(r.rounds).median)))} | ${f(rr.min)}–${f(rr.max)} | ${f(rr.aaMin)}–${f(rr.aaMax)} | ${mb.map((x) => x.toFixed(0)).join(', ')} | ${rs.map((r) => r.wal?.fpi ?? '–').join(', ')} |`,
    );
  }
  console.log('');
  for (const r of results) for (const line of describeDiagnostics(r)) console.log(line);
}
