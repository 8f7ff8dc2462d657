// The examples of docs/orm.md are files (docs/examples/orm/*.ts) that this test runs, on PGlite and
// on PostgreSQL (DATABASE_URL), comparing what each prints with its `// prints:` line; and every code
// block of the page is one of them, shown verbatim after its `<!-- example: … -->` marker, or says it
// is a fragment (scripts/docs-examples.mjs). tsconfig.test.json compiles them.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { postgresUrl } from '@surety/db/testing';

const root = new URL('../../../../', import.meta.url).pathname;
const dir = join(root, 'docs/examples/orm');
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .sort();

test('docs/orm.md: every code block is a file shown verbatim, or a fragment said to be one', async () => {
  const { checkDocBlocks } = (await import(join(root, 'scripts/docs-examples.mjs'))) as {
    checkDocBlocks: (root: string, page: string) => { problems: string[]; examples: string[] };
  };
  const { problems, examples } = checkDocBlocks(root, 'docs/orm.md');
  assert.deepEqual(problems, []);
  assert.ok(files.length >= 8, files.join());
  // Each file here is on the page; the Prisma and NestJS examples run in the smoke matrix
  // (scripts/packages/orm-smoke.mjs) and packages/idempotency/test/nestjs-example.test.ts.
  const shown = ['docs/examples/prisma/prisma.ts', 'docs/examples/nestjs/app.ts'];
  for (const file of [...files.map((f) => `docs/examples/orm/${f}`), ...shown])
    assert.ok(examples.includes(file), `docs/orm.md does not show ${file}`);
});

// One at a time: each is a process of its own that compiles its imports and starts a database
// (PGlite: seconds of WASM); on a loaded machine one can take minutes.
describe('the examples', () => {
  for (const file of files) {
    const text = readFileSync(join(dir, file), 'utf8');
    const expected = /^\/\/ prints: (.*)$/m.exec(text)?.[1];
    const skip =
      !postgresUrl && /Needs PostgreSQL \(DATABASE_URL\)/.test(text)
        ? 'needs PostgreSQL: set DATABASE_URL'
        : false;
    test(`docs/examples/orm/${file} runs and prints what it says`, { skip }, async () => {
      assert.ok(expected, `${file} has no "// prints:" line`);
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--conditions=@surety/source', '--import', 'tsx', join(dir, file)],
        { cwd: root, env: { ...process.env, DATABASE_URL: postgresUrl ?? '' }, timeout: 600_000 },
      );
      assert.equal(stdout.trim(), expected);
    });
  }
});
