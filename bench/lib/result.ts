// What every benchmark hands the orchestrator (bench/run.ts): one line `RESULT {json}` on stdout,
// after its human-readable markdown. The orchestrator repeats runs and takes medians of these.

/** One number a benchmark measured, e.g. `{ name: 'surety.rps', value: 5123, unit: 'req/s' }`. */
export interface Metric {
  name: string;
  value: number;
  unit: string;
}

/** A ratio that has a target, e.g. Surety ÷ its baseline ≥ 0.8. */
export interface Ratio {
  name: string;
  value: number;
  /** The target, compared with `op`; absent for ratios shown for information only. */
  target?: number;
  op?: '>=' | '<=';
  /** What the ratio divides, e.g. "with ÷ without idempotency". */
  what: string;
}

export interface BenchResult {
  bench: string;
  metrics: Metric[];
  ratios: Ratio[];
  /** Markdown the report copies verbatim (plans, notes): not repeated per run, the last run wins. */
  notes?: string;
  /** Series for charts: label → points [x, y]. */
  series?: Record<string, [number, number][]>;
  /** Checks that must hold (no double execution …): name → ok. */
  checks?: Record<string, boolean>;
}

export function emitResult(result: BenchResult): void {
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}

export function parseResult(stdout: string): BenchResult | undefined {
  const line = stdout
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('RESULT '));
  return line ? (JSON.parse(line.slice('RESULT '.length)) as BenchResult) : undefined;
}
