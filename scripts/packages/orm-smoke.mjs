#!/usr/bin/env node
// The ORM smoke matrix (issue 31): per ORM and direction, a fresh app outside the workspace installs
// the packed tarballs plus exactly one ORM and its real driver (and its framework), compiles with tsc
// to JavaScript and runs under plain node against PostgreSQL. The apps are listed in orm-apps.mjs:
// one install per ORM, and in it one entry per direction (scripts/smoke/<entry>.ts), each checking
// itself (scripts/smoke/check.ts): a keyed POST, its replay, 20 concurrent duplicates -> one row, a
// throw after the write -> no row; the examples of docs/orm.md and docs/idempotency.md for that ORM
// run there too, compiled from the same tarballs, and print what they say. No other ORM, driver or
// PGlite is installed, so an adapter that imported a peer it does not need fails at start, as it
// would in a user's app.
//
// Part of scripts/check-packages.mjs (with DATABASE_URL). On its own, it packs what it needs:
//   DATABASE_URL=… node scripts/packages/orm-smoke.mjs [app…] [--tarballs <dir>] [--keep]
// One npm cache (the user's), --prefer-offline, two apps at a time.
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { APPS, SURETY, VERSIONS } from './orm-apps.mjs';

const run = promisify(execFile);

export { APPS };

/** Where a docs example goes in an app's src/: docs/examples/orm/x.ts -> docs-orm-x.ts. */
const docsFile = (f) => `docs-${f.replace('/', '-')}`;

const COMPILER = {
  strict: true,
  target: 'ES2022',
  lib: ['ES2023', 'DOM'],
  module: 'node16',
  moduleResolution: 'node16',
  // drizzle-orm's and typeorm's own declarations fail skipLibCheck false whoever imports them; the
  // types of the packages are checked with it off by scripts/packages/smoke.mjs.
  skipLibCheck: true,
  experimentalDecorators: true,
  types: ['node'],
  outDir: 'dist',
  rootDir: 'src',
};

async function sh(cmd, args, options) {
  try {
    return await run(cmd, args, { maxBuffer: 64 * 1024 * 1024, ...options });
  } catch (error) {
    const output = `${error.stdout ?? ''}${error.stderr ?? ''}`.trim();
    throw new Error(`${cmd} ${args.join(' ')} failed:\n${output.split('\n').slice(-40).join('\n')}`);
  }
}

/**
 * @param {object} o
 * @param {string} o.root the repository
 * @param {string} o.work a temporary folder outside the workspace
 * @param {Record<string, string>} o.tarballs package name -> tarball path
 * @param {string} o.databaseUrl PostgreSQL
 * @param {(name: string, ok: boolean, detail?: string) => void} o.report
 * @param {string[]} [o.only] app names
 */
export async function ormSmoke({ root, work, tarballs, databaseUrl, report, only }) {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const sources = join(root, 'scripts', 'smoke');
  // Every optional peer of @surety/db (the ORMs, their drivers, PGlite): an app may hold only its own.
  const ORM_PEERS = Object.keys(
    JSON.parse(readFileSync(join(root, 'packages', 'db', 'package.json'), 'utf8')).peerDependenciesMeta,
  );
  const apps = APPS.filter((a) => !only?.length || only.includes(a.name));
  const overrides = Object.fromEntries(SURETY.map((n) => [n, `file:${tarballs[n]}`]));

  const one = async (a) => {
    const started = Date.now();
    const dir = join(work, 'orm', a.name);
    mkdirSync(join(dir, 'src'), { recursive: true });
    const dependencies = { ...overrides, '@types/node': VERSIONS['@types/node'] };
    for (const d of a.deps) dependencies[d] = VERSIONS[d];
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify(
        { name: `smoke-${a.name}`, private: true, type: 'module', dependencies, overrides },
        null,
        2,
      ),
    );
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: COMPILER, include: ['src'] }, null, 2),
    );
    for (const f of ['check.ts', 'surety.ts', ...a.entries, ...(a.sources ?? [])])
      copyFileSync(join(sources, f), join(dir, 'src', f));
    // The docs' examples of this ORM (docs/orm.md, docs/idempotency.md show them verbatim), compiled
    // and run here as a reader's app would: each prints what its `// prints:` line says. They sit in
    // src/ beside the generated Prisma client, which the Prisma example imports as an app does.
    for (const f of a.docs ?? [])
      copyFileSync(join(root, 'docs', 'examples', f), join(dir, 'src', docsFile(f)));
    const label = `ORM app ${a.name}`;
    try {
      const cli = join(work, 'orm', `${a.name}-cli`);
      if (a.prisma) {
        mkdirSync(cli, { recursive: true });
        const devDependencies = { prisma: VERSIONS.prisma };
        writeFileSync(
          join(cli, 'package.json'),
          JSON.stringify({ name: 'prisma-cli', private: true, devDependencies }),
        );
      }
      await Promise.all(
        [dir, ...(a.prisma ? [cli] : [])].map((cwd) =>
          sh(
            'npm',
            [
              'install',
              '--no-audit',
              '--no-fund',
              '--ignore-scripts',
              '--prefer-offline',
              '--loglevel=error',
            ],
            {
              cwd,
            },
          ),
        ),
      );
      if (a.prisma) {
        // `prisma generate` needs no database, but fetches a schema-engine binary from outside the
        // npm registry first; generating does not use it, so a stub that refuses to run stands in.
        mkdirSync(join(dir, 'prisma'));
        copyFileSync(
          join(root, 'docs', 'examples', 'prisma', 'schema.prisma'),
          join(dir, 'prisma', 'schema.prisma'),
        );
        const stub = join(dir, 'schema-engine-stub');
        writeFileSync(
          stub,
          '#!/bin/sh\necho "schema engine stub: the smoke app creates its tables in SQL" >&2\nexit 1\n',
          {
            mode: 0o755,
          },
        );
        await sh(process.execPath, [join(cli, 'node_modules', 'prisma', 'build', 'index.js'), 'generate'], {
          cwd: dir,
          env: {
            ...process.env,
            PRISMA_SCHEMA_ENGINE_BINARY: stub,
            CHECKPOINT_DISABLE: '1',
            PRISMA_HIDE_UPDATE_MESSAGE: '1',
          },
          timeout: 120_000,
        });
      }
      await sh(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: dir, timeout: 180_000 });
      const extra = ORM_PEERS.filter((p) => !a.deps.includes(p) && existsSync(join(dir, 'node_modules', p)));
      if (extra.length > 0) throw new Error(`installed besides its own ORM and driver: ${extra.join(', ')}`);
      const installed = Date.now() - started;
      for (const entry of a.entries) {
        const begun = Date.now();
        await sh(process.execPath, [join('dist', entry.replace(/\.ts$/, '.js'))], {
          cwd: dir,
          env: { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: 'production' },
          timeout: 90_000,
        }).then(
          (r) =>
            report(
              `${label}: ${entry}`,
              true,
              `installed and compiled in ${installed} ms, ran in ${Date.now() - begun} ms: ${r.stdout.trim()}`,
            ),
          (e) => report(`${label}: ${entry}`, false, e.message),
        );
      }
      for (const f of a.docs ?? []) {
        const expected = /^\s*\/\/ prints: (.*)$/m.exec(
          readFileSync(join(root, 'docs', 'examples', f), 'utf8'),
        )?.[1];
        await sh(process.execPath, [join('dist', docsFile(f).replace(/\.ts$/, '.js'))], {
          cwd: dir,
          env: { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: 'production' },
          timeout: 90_000,
        }).then(
          (r) =>
            report(
              `${label}: docs/examples/${f} prints what it says`,
              r.stdout.trim() === expected,
              r.stdout.trim() === expected
                ? r.stdout.trim()
                : `printed ${r.stdout.trim()}\nexpected ${expected}`,
            ),
          (e) => report(`${label}: docs/examples/${f}`, false, e.message),
        );
      }
    } catch (error) {
      report(label, false, error.message);
    }
  };

  const queue = [...apps];
  await Promise.all(
    [0, 1].map(async () => {
      for (let a = queue.shift(); a; a = queue.shift()) await one(a);
    }),
  );
}

// --- on its own ------------------------------------------------------------------------------------
if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const keep = args.includes('--keep');
  const at = args.indexOf('--tarballs');
  const given = at >= 0 ? args.splice(at, 2)[1] : undefined;
  const only = args.filter((a) => !a.startsWith('--'));
  const root = realpathSync(new URL('../..', import.meta.url).pathname);
  if (!process.env.DATABASE_URL) {
    console.error('orm-smoke: set DATABASE_URL (PostgreSQL)');
    process.exit(2);
  }
  const work = mkdtempSync(join(realpathSync(tmpdir()), 'surety-orm-smoke-'));
  if (!relative(root, work).startsWith('..')) throw new Error(`${work} is inside the workspace`);
  const started = Date.now();
  const results = [];
  try {
    let dir = given;
    if (!dir) {
      dir = join(work, 'tarballs');
      mkdirSync(dir);
      await sh(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-b'], {
        cwd: root,
      });
      await sh(
        'npm',
        [
          'pack',
          '--loglevel=error',
          `--pack-destination=${dir}`,
          ...SURETY.flatMap((n) => ['-w', `packages/${n.split('/')[1]}`]),
        ],
        {
          cwd: root,
        },
      );
    }
    const files = readdirSync(dir);
    const tarballs = Object.fromEntries(
      SURETY.map((n) => [
        n,
        join(
          dir,
          files.find((f) => f.startsWith(`${n.slice(1).replace('/', '-')}-`)),
        ),
      ]),
    );
    await ormSmoke({
      root,
      work,
      tarballs,
      databaseUrl: process.env.DATABASE_URL,
      only,
      report: (name, ok, detail) => {
        results.push(ok);
        console.log(
          `${ok ? '  ok  ' : '  FAIL'} ${name}${detail ? `\n      ${detail.replace(/\n/g, '\n      ')}` : ''}`,
        );
      },
    });
  } finally {
    if (keep) console.log(`(kept ${work})`);
    else rmSync(work, { recursive: true, force: true });
  }
  const failed = results.filter((ok) => !ok).length;
  console.log(
    `== ORM smoke: ${results.length - failed} of ${results.length} passed in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  process.exit(failed === 0 && results.length > 0 ? 0 : 1);
}
