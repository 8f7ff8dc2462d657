// Each ORM subpath of @surety/db loads its own ORM and driver and nothing else (issue 31): imported
// in a process where every other optional peer looks uninstalled, it loads. A subpath that imported
// another ORM's module, or PGlite, would fail here as it fails in an application that installed one
// ORM with its real driver (the smoke matrix, scripts/packages/orm-smoke.mjs, proves it from the
// tarballs).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

// Every optional peer of @surety/db: the ORMs, their drivers, PGlite.
const PEERS = Object.keys(
  (
    JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      peerDependenciesMeta: object;
    }
  ).peerDependenciesMeta,
);

/** Each subpath, and the optional peers it may load. */
const SUBPATHS: Record<string, readonly string[]> = {
  '@surety/db': [],
  '@surety/db/kysely': ['kysely'],
  '@surety/db/drizzle': ['drizzle-orm'],
  '@surety/db/drizzle-pglite': ['drizzle-orm', '@electric-sql/pglite'],
  '@surety/db/knex': ['knex'],
  '@surety/db/postgres-js': ['postgres'],
  '@surety/db/typeorm': ['typeorm'],
  '@surety/db/prisma': ['@prisma/adapter-pg'],
};

const preload = fileURLToPath(new URL('./fixtures/deny-peers.mjs', import.meta.url));

async function load(specifier: string, denied: readonly string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--conditions=@surety/source',
      '--import',
      'tsx',
      '--import',
      preload,
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(specifier)}); console.log(Object.keys(m).length);`,
    ],
    { env: { ...process.env, SURETY_DENY_PEERS: denied.join(',') }, timeout: 60_000 },
  );
  return stdout.trim();
}

test('the deny hook works: a subpath whose peer is denied does not load', async () => {
  await assert.rejects(load('@surety/db/kysely', ['kysely']), /Cannot find package 'kysely'/);
});

for (const [specifier, own] of Object.entries(SUBPATHS)) {
  test(`${specifier} loads with only ${own.join(' and ') || 'pg'} installed`, async () => {
    const exported = await load(
      specifier,
      PEERS.filter((p) => !own.includes(p)),
    );
    assert.ok(Number(exported) > 0, `${specifier} exports nothing`);
  });
}
