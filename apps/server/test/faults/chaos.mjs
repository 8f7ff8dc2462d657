#!/usr/bin/env node
// `npm run chaos`: the fault suite's long form. Runs every test of apps/server/test/faults with
// SURETY_CHAOS=1 (larger counts, more kills, 1,000 fuzz runs per route), one file at a time, then
// prints one row per scenario: operations, faults injected, lost, duplicated. Exits non-zero when a
// test failed, a scenario did not report, or anything was lost or duplicated.
// Needs DATABASE_URL (most scenarios need several connections or processes).
// Usage: node apps/server/test/faults/chaos.mjs [file-filter ...]   (SURETY_CHAOS_SEED to repeat)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = fileURLToPath(new URL('../../../../', import.meta.url));
const EXPECTED = [
  'response lost after commit',
  'server process SIGKILLed',
  'database backends terminated',
  'worker SIGKILLed, receiver flaky, inbox',
  'reservation race, answers dropped',
];

if (!process.env.DATABASE_URL) {
  console.error(
    'npm run chaos needs DATABASE_URL (a PostgreSQL server): most scenarios are skipped without it.',
  );
  process.exit(2);
}
const filters = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.test.ts'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .map((f) => relative(root, join(here, f)));
const dir = mkdtempSync(join(tmpdir(), 'surety-chaos-'));
const reportFile = join(dir, 'figures.jsonl');
const started = Date.now();
const run = spawnSync(
  process.execPath,
  [
    '--conditions=@surety/source',
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=1',
    '--test-reporter=spec',
    ...files,
  ],
  {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, SURETY_CHAOS: '1', SURETY_CHAOS_REPORT: reportFile },
  },
);
const seconds = Math.round((Date.now() - started) / 1000);
let rows = [];
try {
  rows = readFileSync(reportFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
} catch {}
rmSync(dir, { recursive: true, force: true });

const columns = ['scenario', 'operations', 'faults', 'lost', 'duplicated', 'notes'];
const table = [columns, ...rows.map((r) => columns.map((c) => String(r[c] ?? '')))];
const widths = columns.map((_, i) => Math.max(...table.map((row) => row[i].length)));
console.log(`\nchaos summary (${seconds} s, tests ${run.status === 0 ? 'passed' : 'FAILED'})\n`);
for (const [i, row] of table.entries()) {
  console.log(
    `| ${row.map((cell, j) => (j >= 1 && j <= 4 ? cell.padStart(widths[j]) : cell.padEnd(widths[j]))).join(' | ')} |`,
  );
  if (i === 0)
    console.log(
      `|${widths.map((w, j) => (j >= 1 && j <= 4 ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`,
    );
}
const bad = rows.filter((r) => r.lost > 0 || r.duplicated > 0);
const missing = filters.length === 0 ? EXPECTED.filter((s) => !rows.some((r) => r.scenario === s)) : [];
if (missing.length > 0) console.error(`\nscenarios that did not report: ${missing.join(', ')}`);
if (bad.length > 0) console.error(`\nLOSS OR DUPLICATION in: ${bad.map((r) => r.scenario).join(', ')}`);
process.exit(run.status !== 0 || bad.length > 0 || missing.length > 0 ? 1 : 0);
