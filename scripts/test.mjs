#!/usr/bin/env node
// Runs every test file of the workspace with node's test runner, on the TypeScript sources
// (the "@surety/source" export condition points each @surety/* package at its src/; docs/decisions.md says why not "source").
// Usage: node scripts/test.mjs [path-filter ...]
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);

function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (name.endsWith('.test.ts')) out.push(relative(root, path));
  }
  return out;
}

const files = ['packages', 'apps', 'bench']
  .filter((top) => existsSync(join(root, top)))
  .flatMap((top) => walk(join(root, top), []))
  .filter((f) => filters.length === 0 || filters.some((flt) => f.includes(flt)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
console.log(
  `backend: ${process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'PGlite (set DATABASE_URL for PostgreSQL)'}`,
);
const concurrency = process.env.TEST_CONCURRENCY ?? '3';
const child = spawn(
  process.execPath,
  [
    '--conditions=@surety/source',
    '--import',
    'tsx',
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-reporter=spec',
    ...files,
  ],
  { cwd: root, stdio: 'inherit' },
);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
