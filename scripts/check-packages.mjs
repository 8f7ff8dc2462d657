#!/usr/bin/env node
// Proves every package installable on its own, from the tarball npm would publish:
//   1. repository hygiene: LICENSE copies, README examples in sync, no stale `source` condition;
//   2. per tarball: our own check (every file an export condition, a types field, a sourceMappingURL
//      or a map's `sources` points at is in it; metadata), publint (no errors or warnings),
//      attw --profile esm-only (no problems), npm publish --dry-run;
//   3. `changeset version` applies the pending changesets (on a throwaway clone);
//   4. the install-from-tarballs smoke test outside the workspace (scripts/packages/smoke.mjs);
//   5. with DATABASE_URL, the ORM smoke matrix: one app per ORM and direction, each with only its own
//      ORM and driver installed, compiled with tsc and run with node (scripts/packages/orm-smoke.mjs).
// Prints one line per check and a summary; exits 1 when any check failed.
// Usage: node scripts/check-packages.mjs [--write-readmes] [--keep] [--no-smoke]
//   DATABASE_URL: PostgreSQL for the pg-only app's examples (skipped, and said so, without it).
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { checkChangesets } from './packages/changesets.mjs';
import { ormSmoke } from './packages/orm-smoke.mjs';
import { checkReadmeExample } from './packages/readme-examples.mjs';
import { smoke } from './packages/smoke.mjs';
import { checkTarballFiles } from './packages/tarball-files.mjs';

const run = promisify(execFile);
const root = realpathSync(new URL('..', import.meta.url).pathname);
const args = new Set(process.argv.slice(2));
const started = Date.now();
const section = (title) => console.log(`== ${title} (${((Date.now() - started) / 1000).toFixed(0)} s)`);

const results = [];
function report(name, ok, detail) {
  results.push({ name, ok, detail });
  const lines = detail ? `\n${String(detail).replace(/^/gm, '      ')}` : '';
  console.log(`${ok ? '  ok  ' : '  FAIL'} ${name}${ok && detail && detail.length > 200 ? '' : lines}`);
}

async function sh(cmd, argv, options = {}) {
  return run(cmd, argv, { cwd: root, maxBuffer: 64 * 1024 * 1024, ...options });
}
const output = (error) => `${error.stdout ?? ''}${error.stderr ?? ''}`.trim();
const bin = (name) => join(root, 'node_modules', '.bin', name);

/** Runs `tasks` (functions returning promises) at most `limit` at a time. */
async function pool(limit, tasks) {
  const queue = [...tasks];
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (queue.length > 0) await queue.shift()();
    }),
  );
}

// --- the packages --------------------------------------------------------------------------------
const packages = readdirSync(join(root, 'packages'))
  .map((name) => ({ dir: join(root, 'packages', name), folder: `packages/${name}` }))
  .map((p) => ({ ...p, pkg: JSON.parse(readFileSync(join(p.dir, 'package.json'), 'utf8')) }))
  .filter((p) => !p.pkg.private)
  .map((p) => ({
    ...p,
    name: p.pkg.name,
    exports: Object.keys(p.pkg.exports).filter((k) => k !== './package.json'),
  }));
console.log(`== ${packages.length} packages: ${packages.map((p) => p.name).join(', ')}`);

// --- 1. repository hygiene ------------------------------------------------------------------------
section('repository');
const license = readFileSync(join(root, 'LICENSE'), 'utf8');
for (const p of packages) {
  let copy = '';
  try {
    copy = readFileSync(join(p.dir, 'LICENSE'), 'utf8');
  } catch {}
  report(
    `${p.name}: LICENSE is the root's`,
    copy === license,
    copy === '' ? 'missing' : copy !== license ? 'differs' : undefined,
  );
  const readme = checkReadmeExample(p.dir, { write: args.has('--write-readmes') });
  p.examples = readme.examples;
  report(
    `${p.name}: README example = ${readme.examples.join(', ') || '(none)'}`,
    readme.problems.length === 0,
    readme.problems.join('\n') || undefined,
  );
}
// The export condition for the TypeScript sources is "@surety/source" (docs/decisions.md): a bare
// "source" is honoured by some bundlers and set by many monorepos in customConditions, and would
// send them to our shipped .ts files. A file still passing `--conditions=source` would silently run
// on dist/.
{
  const { stdout } = await sh('git', ['ls-files', '-z']);
  const stale = [];
  for (const file of stdout.split('\0').filter((f) => /\.(m?[jt]s|json|md|sh)$|(^|\/)run$/.test(f))) {
    // The history (decisions, changelogs) may name the old condition; nothing there runs.
    const history = file === 'docs/decisions.md' || /(^|\/)CHANGELOG\.md$|^\.changeset\//.test(file);
    if (history || file === 'package-lock.json' || file.startsWith('scripts/check-packages')) continue;
    let text;
    try {
      text = readFileSync(join(root, file), 'utf8');
    } catch {
      continue;
    }
    if (
      /--conditions[= ]source\b|customConditions"?\s*:\s*\[[^\]]*"source"|^\s*"source"\s*:\s*"\.\/src\//m.test(
        text,
      )
    )
      stale.push(file);
  }
  report('no file uses the bare "source" condition', stale.length === 0, stale.join('\n') || undefined);
}

// --- 2. build, pack, and check each tarball --------------------------------------------------------
const work = mkdtempSync(join(realpathSync(tmpdir()), 'surety-packages-'));
if (!relative(root, work).startsWith('..')) throw new Error(`${work} is inside the workspace`);
const tarballDir = join(work, 'tarballs');
mkdirSync(tarballDir);
try {
  section(`build and pack (in ${work})`);
  await sh(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-b']);
  const { stdout: packed } = await sh('npm', [
    'pack',
    '--json',
    '--loglevel=error',
    `--pack-destination=${tarballDir}`,
    ...packages.flatMap((p) => ['-w', p.folder]),
  ]);
  for (const entry of JSON.parse(packed)) {
    const p = packages.find((x) => x.name === entry.name);
    p.tarball = join(tarballDir, entry.filename);
    p.size = entry.size;
  }
  report(
    `npm pack: ${packages.length} tarballs`,
    packages.every((p) => p.tarball),
    packages.map((p) => `${p.name} ${(p.size / 1024).toFixed(1)} kB`).join(', '),
  );

  section('tarballs: files, publint, attw --profile esm-only, npm publish --dry-run');
  await pool(
    2,
    packages.map((p) => async () => {
      const unpacked = join(work, 'unpacked', p.name.replace('/', '+'));
      mkdirSync(unpacked, { recursive: true });
      await sh('tar', ['-xzf', p.tarball, '-C', unpacked]);
      const problems = checkTarballFiles(join(unpacked, 'package'), { directory: p.folder });
      report(
        `${p.name}: every file pointed at is in the tarball; metadata`,
        problems.length === 0,
        problems.join('\n') || undefined,
      );
      await sh(bin('publint'), ['run', p.tarball, '--strict']).then(
        (r) => report(`${p.name}: publint`, true, /All good/.test(r.stdout) ? undefined : r.stdout.trim()),
        (e) => report(`${p.name}: publint`, false, output(e)),
      );
      await sh(bin('attw'), [p.tarball, '--profile', 'esm-only', '--format', 'ascii']).then(
        () => report(`${p.name}: attw --profile esm-only`, true),
        (e) => report(`${p.name}: attw --profile esm-only`, false, output(e)),
      );
      await sh('npm', ['publish', '--dry-run', '--loglevel=error', p.tarball], { cwd: work }).then(
        () => report(`${p.name}: npm publish --dry-run`, true),
        (e) => report(`${p.name}: npm publish --dry-run`, false, output(e)),
      );
    }),
  );

  await checkChangesets({ root, work, report }).catch((e) =>
    report('changesets', false, e.stack ?? String(e)),
  );

  // --- 4. install the tarballs outside the workspace -----------------------------------------------
  section('install from the tarballs, outside the workspace');
  if (args.has('--no-smoke')) {
    console.log('   (skipped: --no-smoke)');
  } else if (results.some((r) => !r.ok)) {
    report('smoke test', false, 'not run: fix the failures above first');
  } else {
    await smoke({ root, work, packages, databaseUrl: process.env.DATABASE_URL || undefined, report }).catch(
      (e) => report('smoke test', false, e.stack ?? String(e)),
    );
    section('the ORM smoke matrix: one app per ORM and direction, its own ORM and driver only');
    if (process.env.DATABASE_URL) {
      const tarballs = Object.fromEntries(packages.map((p) => [p.name, p.tarball]));
      await ormSmoke({ root, work, tarballs, databaseUrl: process.env.DATABASE_URL, report }).catch((e) =>
        report('ORM smoke matrix', false, e.stack ?? String(e)),
      );
    } else {
      report('ORM smoke matrix', true, 'skipped: set DATABASE_URL (PostgreSQL)');
    }
  }
} finally {
  if (args.has('--keep')) console.log(`(kept ${work})`);
  else rmSync(work, { recursive: true, force: true });
}

const failed = results.filter((r) => !r.ok);
console.log(
  `\n== packages: ${results.length - failed.length} of ${results.length} checks passed in ${((Date.now() - started) / 1000).toFixed(0)} s`,
);
for (const f of failed) console.log(`   FAILED: ${f.name}`);
process.exit(failed.length === 0 ? 0 : 1);
