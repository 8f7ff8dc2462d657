// Runs the workspace's ORM examples (packages/db/examples/orm/*.ts: Prisma all three ways, with a
// client this test generates) as a user would, and checks what each prints. docs/orm.md shows
// docs/examples/ instead (packages/db/test/orm/examples.test.ts and the smoke matrix run those).
// PostgreSQL only: the ORMs here have no PGlite driver.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { needsPostgres } from '@surety/db/testing';
import { generatePrismaClient } from './prisma-client.js';

const dir = fileURLToPath(new URL('../examples/orm/', import.meta.url));
const examples = readdirSync(dir).filter((f) => f.endsWith('.ts'));

describe('packages/db/examples/orm', { skip: needsPostgres }, () => {
  let prismaClient = '';
  let remove = async () => {};
  before(async () => {
    const generated = await generatePrismaClient();
    prismaClient = pathToFileURL(generated.path).href;
    remove = generated.remove;
  });
  after(() => remove());

  for (const file of examples) {
    test(file, async () => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--conditions=@surety/source', '--import', 'tsx', `${dir}${file}`],
        { env: { ...process.env, PRISMA_CLIENT: prismaClient }, timeout: 120_000 },
      );
      // Each `console.log(…); // what it prints` of the example, in order, is what it printed.
      const expected = readFileSync(`${dir}${file}`, 'utf8')
        .split('\n')
        .flatMap((line) => /console\.log\(.*\);\s*\/\/ (.*)$/.exec(line)?.[1] ?? []);
      assert.ok(expected.length > 0, `${file} shows what it prints`);
      assert.deepEqual(stdout.trim().split('\n'), expected);
    });
  }
});
