// The install-from-tarballs smoke test: two apps in a temporary folder outside the workspace, with
// the packed tarballs and registry packages only.
//
// - "full": every package, with their optional peers (pg, PGlite, express, fastify, hono, kysely,
//   drizzle-orm, knex, @prisma/adapter-pg, NestJS). Every
//   export of every package is imported with plain node (ESM) and required (`require()` of ESM, Node
//   20.19+); a consumer of each package's main API is type-checked with moduleResolution node16,
//   bundler and node10 (skipLibCheck false), one of the subpaths with node16 and bundler; each
//   README example is compiled (node16, skipLibCheck false) and run (on PGlite).
// - "pg-only": @surety/db with pg and @surety/idempotency with express, as a team on PostgreSQL
//   installs them: no @electric-sql/pglite and no fastify-plugin may be installed, the types hold
//   without them, the embedded database fails with an error naming the package, and (with
//   DATABASE_URL) the db and idempotency examples run on PostgreSQL.
// The apps' sources, compiler options and third-party versions are in smoke-sources.mjs.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  COMPILER,
  CONSUMER_MAIN,
  CONSUMER_PG_ONLY,
  CONSUMER_SUBPATHS,
  LOADER,
  MISSING_PGLITE,
  RESOLUTIONS,
  THIRD_PARTY,
  WORKER_PROCESS,
} from './smoke-sources.mjs';

const run = promisify(execFile);

async function sh(cmd, args, options) {
  try {
    return await run(cmd, args, { maxBuffer: 64 * 1024 * 1024, ...options });
  } catch (error) {
    const output = `${error.stdout ?? ''}${error.stderr ?? ''}`.trim();
    throw new Error(`${cmd} ${args.join(' ')} failed:\n${output.split('\n').slice(0, 60).join('\n')}`);
  }
}

function writeApp(dir, dependencies, tarballs) {
  mkdirSync(dir, { recursive: true });
  // Overrides make every @surety/* dependency (direct or between packages) the local tarball, never
  // the registry's.
  const overrides = Object.fromEntries(
    Object.entries(tarballs).map(([name, file]) => [name, `file:${file}`]),
  );
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'smoke-app', private: true, type: 'module', dependencies, overrides }, null, 2),
  );
}

function tsconfig(dir, name, resolution, files, extra = {}) {
  writeFileSync(
    join(dir, name),
    JSON.stringify(
      { compilerOptions: { ...COMPILER, ...RESOLUTIONS[resolution], ...extra }, files },
      null,
      2,
    ),
  );
}

/**
 * @param {object} o
 * @param {string} o.root the repository
 * @param {string} o.work a temporary folder outside the workspace
 * @param {{ name: string, tarball: string, dir: string, exports: string[], examples: string[] }[]} o.packages
 * @param {string | undefined} o.databaseUrl PostgreSQL for the pg-only examples
 * @param {(name: string, ok: boolean, detail?: string) => void} o.report
 */
export async function smoke({ root, work, packages, databaseUrl, report }) {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const tarballs = Object.fromEntries(packages.map((p) => [p.name, p.tarball]));
  const npmInstall = (dir) =>
    sh('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: dir });

  // --- the two apps, installed in parallel --------------------------------------------------------
  const full = join(work, 'full');
  const pgOnly = join(work, 'pg-only');
  writeApp(
    full,
    { ...Object.fromEntries(packages.map((p) => [p.name, `file:${p.tarball}`])), ...THIRD_PARTY },
    tarballs,
  );
  writeApp(
    pgOnly,
    {
      '@surety/db': `file:${tarballs['@surety/db']}`,
      '@surety/idempotency': `file:${tarballs['@surety/idempotency']}`,
      pg: THIRD_PARTY.pg,
      express: THIRD_PARTY.express,
      '@types/express': THIRD_PARTY['@types/express'],
      '@types/node': THIRD_PARTY['@types/node'],
    },
    tarballs,
  );
  const started = Date.now();
  await Promise.all([npmInstall(full), npmInstall(pgOnly)]);
  report(
    'install: two apps from the tarballs (registry dependencies only)',
    true,
    `${Date.now() - started} ms`,
  );

  // --- pg-only: nothing optional came along -------------------------------------------------------
  for (const unwanted of ['@electric-sql/pglite', 'fastify-plugin', 'fastify']) {
    const present = existsSync(join(pgOnly, 'node_modules', unwanted));
    report(`pg-only app: no ${unwanted} in node_modules`, !present, present ? 'installed' : undefined);
  }

  // --- import and require every export ------------------------------------------------------------
  const specs = packages.flatMap((p) =>
    p.exports.map((sub) => (sub === '.' ? p.name : `${p.name}/${sub.slice(2)}`)),
  );
  writeFileSync(join(full, 'load.mjs'), LOADER);
  const { stdout } = await sh(process.execPath, ['--no-warnings', 'load.mjs', JSON.stringify(specs)], {
    cwd: full,
  });
  const loaded = JSON.parse(stdout);
  for (const kind of ['esm', 'cjs']) {
    const failed = Object.entries(loaded[kind]).filter(([, e]) => e !== null);
    report(
      `${kind === 'esm' ? 'import()' : 'require()'} of all ${specs.length} exports with plain node`,
      failed.length === 0,
      failed.map(([s, e]) => `${s}: ${e}`).join('\n') || undefined,
    );
  }

  // --- the CLI that @surety/events installs: diff a contract built from the install with itself ------
  writeFileSync(
    join(full, 'contract.mjs'),
    "import { buildAsyncApi, createRegistry, toJson } from '@surety/events';\nprocess.stdout.write(toJson(buildAsyncApi(createRegistry())));\n",
  );
  await sh(process.execPath, ['contract.mjs'], { cwd: full })
    .then((r) => writeFileSync(join(full, 'contract.json'), r.stdout))
    .then(() =>
      sh(join(full, 'node_modules', '.bin', 'surety-contracts'), ['diff', 'contract.json', 'contract.json'], {
        cwd: full,
      }),
    )
    .then(
      (r) =>
        report(
          'bin: surety-contracts diff runs from the install',
          /no changes/.test(r.stdout),
          r.stdout.trim(),
        ),
      (e) => report('bin: surety-contracts diff runs from the install', false, e.message),
    );

  // --- types: consumers under each resolution, skipLibCheck false ----------------------------------
  writeFileSync(join(full, 'consumer-main.ts'), CONSUMER_MAIN);
  writeFileSync(join(full, 'consumer-subpaths.ts'), CONSUMER_SUBPATHS);
  const checks = [];
  for (const resolution of ['node16', 'bundler', 'node10']) {
    const files =
      resolution === 'node10' ? ['consumer-main.ts'] : ['consumer-main.ts', 'consumer-subpaths.ts'];
    tsconfig(full, `tsconfig.${resolution}.json`, resolution, files, { noEmit: true });
    checks.push(
      sh(process.execPath, [tsc, '-p', `tsconfig.${resolution}.json`], { cwd: full }).then(
        () => report(`types: ${files.join(' + ')} with moduleResolution ${resolution}`, true),
        (e) => report(`types: ${files.join(' + ')} with moduleResolution ${resolution}`, false, e.message),
      ),
    );
  }
  writeFileSync(join(pgOnly, 'consumer.ts'), CONSUMER_PG_ONLY);
  tsconfig(pgOnly, 'tsconfig.check.json', 'node16', ['consumer.ts'], { noEmit: true });
  checks.push(
    sh(process.execPath, [tsc, '-p', 'tsconfig.check.json'], { cwd: pgOnly }).then(
      () => report('types: pg-only app (no PGlite installed) with node16', true),
      (e) => report('types: pg-only app (no PGlite installed) with node16', false, e.message),
    ),
  );
  await Promise.all(checks);

  // --- the embedded database without PGlite: an error that names it --------------------------------
  writeFileSync(join(pgOnly, 'missing-pglite.mjs'), MISSING_PGLITE);
  await sh(process.execPath, ['missing-pglite.mjs'], { cwd: pgOnly }).then(
    (r) => report('pg-only app: openSql({}) without PGlite names the package', true, r.stdout.trim()),
    (e) => report('pg-only app: openSql({}) without PGlite names the package', false, e.message),
  );

  // --- README examples: compiled against the installed packages, then run --------------------------
  const examples = packages.flatMap((p) =>
    p.examples.map((file) => ({ pkg: p.name, from: join(p.dir, file), as: `${p.name.split('/')[1]}.ts` })),
  );
  mkdirSync(join(full, 'examples'), { recursive: true });
  for (const e of examples) cpSync(e.from, join(full, 'examples', e.as));
  tsconfig(
    full,
    'tsconfig.examples.json',
    'node16',
    examples.map((e) => `examples/${e.as}`),
    { outDir: 'out', rootDir: 'examples', lib: ['ES2023', 'DOM'] },
  );
  let compiled = true;
  await sh(process.execPath, [tsc, '-p', 'tsconfig.examples.json'], { cwd: full }).then(
    () => report(`examples: ${examples.length} README examples compile (node16, skipLibCheck false)`, true),
    (e) => {
      compiled = false;
      report('examples: README examples compile', false, e.message);
    },
  );
  const runExample = async (app, file, env, label) => {
    const begun = Date.now();
    await sh(process.execPath, [file], { cwd: app, env, timeout: 60_000 }).then(
      (r) =>
        report(
          label,
          true,
          `${Date.now() - begun} ms: ${r.stdout.trim().split('\n').join(' | ').slice(0, 160)}`,
        ),
      (e) => report(label, false, e.message),
    );
  };
  const envWithout = { ...process.env };
  delete envWithout.DATABASE_URL;
  if (compiled) {
    // Two at a time (two cores): each starts its own in-memory PGlite and servers on 127.0.0.1.
    const queue = [...examples];
    const next = async () => {
      for (let e = queue.shift(); e; e = queue.shift()) {
        const file = join('out', e.as.replace(/\.ts$/, '.js'));
        await runExample(full, file, envWithout, `example ${e.pkg} runs (PGlite)`);
      }
    };
    await Promise.all([next(), next()]);
  }

  if (databaseUrl) {
    writeFileSync(join(full, 'worker-process.mjs'), WORKER_PROCESS);
    await sh(process.execPath, ['worker-process.mjs'], {
      cwd: full,
      env: { ...process.env, DATABASE_URL: databaseUrl },
      timeout: 90_000,
    }).then(
      (r) =>
        report(
          '@surety/webhooks/testing: spawnWorkerProcess from the install delivers',
          true,
          r.stdout.trim(),
        ),
      (e) =>
        report('@surety/webhooks/testing: spawnWorkerProcess from the install delivers', false, e.message),
    );
  }

  // --- pg-only: the db and idempotency examples on PostgreSQL --------------------------------------
  const pgExamples = examples.filter((e) => e.pkg === '@surety/db' || e.pkg === '@surety/idempotency');
  if (!databaseUrl) {
    report('pg-only app: examples on PostgreSQL', true, 'skipped: set DATABASE_URL');
    return;
  }
  mkdirSync(join(pgOnly, 'examples'), { recursive: true });
  for (const e of pgExamples) cpSync(e.from, join(pgOnly, 'examples', e.as));
  tsconfig(
    pgOnly,
    'tsconfig.examples.json',
    'node16',
    pgExamples.map((e) => `examples/${e.as}`),
    { outDir: 'out', rootDir: 'examples', lib: ['ES2023', 'DOM'] },
  );
  try {
    await sh(process.execPath, [tsc, '-p', 'tsconfig.examples.json'], { cwd: pgOnly });
  } catch (e) {
    report('pg-only app: examples compile', false, e.message);
    return;
  }
  for (const e of pgExamples) {
    await runExample(
      pgOnly,
      join('out', e.as.replace(/\.ts$/, '.js')),
      { ...process.env, DATABASE_URL: databaseUrl },
      `pg-only app: example ${e.pkg} runs on PostgreSQL`,
    );
  }
}
