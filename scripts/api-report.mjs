#!/usr/bin/env node
// The public API of every package, as committed snapshots (api/<package>.api.d.ts), so that a change
// to what users import cannot land unnoticed: `npm test` runs `--check`, which fails when the built
// declarations differ from the snapshot; `npm run api:update` rewrites the snapshots after a change
// that is meant (review the diff: it is the API change).
//
// What a snapshot holds: for each entry point in the package's `exports` (its `types` file), every
// declaration file reachable from it through relative imports and re-exports, printed by the
// TypeScript printer without comments (so a doc-comment edit is not an API change) and in a fixed
// order. That is the emitted .d.ts the issue asks for: API Extractor's report needs one run per
// entry point and cannot follow our subpath exports into one report.
//
// Usage: node scripts/api-report.mjs --check | --update   (reads dist/: run `tsc -b` first)
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(new URL('..', import.meta.url).pathname);
const mode = process.argv[2];
if (mode !== '--check' && mode !== '--update') {
  console.error('usage: node scripts/api-report.mjs --check | --update');
  process.exit(2);
}
const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

/** The `types` target of every export entry, with the subpath it serves. */
function entries(pkg) {
  const out = [];
  for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
    const types = typeof target === 'string' ? undefined : target.types;
    if (typeof types === 'string' && types.endsWith('.d.ts')) out.push({ subpath, types });
  }
  return out;
}

/** Declaration files reachable from `file` through relative specifiers, in visit order. */
function reachable(file, seen = new Set()) {
  if (seen.has(file)) return seen;
  seen.add(file);
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  for (const { fileName } of importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const target = resolve(dirname(file), fileName.replace(/\.js$/, '.d.ts'));
    if (existsSync(target)) reachable(target, seen);
  }
  return seen;
}

function print(file) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  return printer.printFile(source).trimEnd();
}

function report(dir) {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const list = entries(pkg);
  if (list.length === 0) return undefined;
  const lines = [`// The public API of ${pkg.name} (scripts/api-report.mjs; do not edit by hand).`, ''];
  const printed = new Set();
  for (const { subpath, types } of list) {
    const entry = join(dir, types);
    if (!existsSync(entry)) throw new Error(`${pkg.name}: ${types} is missing: run \`npx tsc -b\` first`);
    lines.push(`// ===== ${subpath} → ${types}`);
    for (const file of reachable(entry)) {
      const rel = relative(dir, file);
      if (printed.has(rel)) {
        lines.push(`// (${rel}: above)`);
        continue;
      }
      printed.add(rel);
      lines.push(`// --- ${rel}`, print(file), '');
    }
  }
  return { name: pkg.name, text: `${lines.join('\n').trimEnd()}\n` };
}

const out = join(root, 'api');
mkdirSync(out, { recursive: true });
const wanted = new Map();
for (const name of readdirSync(join(root, 'packages')).sort()) {
  const dir = join(root, 'packages', name);
  if (!existsSync(join(dir, 'package.json'))) continue;
  const r = report(dir);
  if (r) wanted.set(`${name}.api.d.ts`, r.text);
}

let stale = 0;
for (const [file, text] of wanted) {
  const path = join(out, file);
  const had = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  if (had === text) continue;
  if (mode === '--update') {
    writeFileSync(path, text);
    console.log(`api/${file}: written`);
  } else {
    stale++;
    console.error(`api/${file}: ${had === undefined ? 'missing' : 'differs from the built declarations'}`);
  }
}
for (const file of readdirSync(out)) {
  if (file.endsWith('.api.d.ts') && !wanted.has(file)) {
    stale++;
    console.error(`api/${file}: no such package any more`);
  }
}
if (stale > 0) {
  console.error(
    `\n${stale} public API snapshot(s) out of date. If the change is meant, run \`npm run api:update\` and commit api/ (the diff is the API change).`,
  );
  process.exit(1);
}
if (mode === '--check') console.log(`public API: ${wanted.size} packages match their snapshots in api/`);
