// One run of a benchmark by bench/run.ts: its script as a child process (tethered to this one, killed at
// its time limit), its markdown and its `RESULT {json}` (result.ts).
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Bench } from './benches.js';
import { type BenchResult, parseResult } from './result.js';
import { TETHER_ARGS } from './tether.js';

/** bench/, where the scripts are, and the repository they run in. */
const here = join(dirname(fileURLToPath(import.meta.url)), '..');
const root = join(here, '..');

export interface Run {
  result: BenchResult | undefined;
  markdown: string;
  seconds: number;
  loadBefore: number;
  loadAfter: number;
  exit: number | null;
}

export function runOnce(bench: Bench, i: number, env: Record<string, string> = {}): Promise<Run> {
  const loadBefore = loadavg()[0]!;
  const started = performance.now();
  const execArgs = [...(bench.conditions ? ['--conditions=@surety/source'] : []), '--import', 'tsx'];
  const child = spawn(
    process.execPath,
    [...TETHER_ARGS, ...execArgs, join(here, bench.file), ...bench.args],
    {
      cwd: root,
      env: { ...process.env, ...env, BENCH_RUN: String(i) },
      // A stdin pipe ties the benchmark to this run (bench/lib/tether.mjs): killed at its time limit, it
      // takes the workers and servers it started with it.
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    for (const line of c.toString().split('\n').filter(Boolean))
      process.stderr.write(`  [${bench.name}] ${line}\n`);
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), bench.timeoutMs);
  return new Promise((resolve) => {
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({
        result: parseResult(out),
        markdown: out
          .split('\n')
          .filter((l) => !l.startsWith('RESULT '))
          .join('\n')
          .trim(),
        seconds: (performance.now() - started) / 1000,
        loadBefore,
        loadAfter: loadavg()[0]!,
        exit: code,
      });
    });
  });
}
