// docs/idempotency.md's and docs/side-effects.md's code blocks are files (docs/examples/idempotency/
// *.ts) or say they are fragments (scripts/docs-examples.mjs checks the page): each file shown runs here (PGlite, or
// PostgreSQL with DATABASE_URL) and prints what its `// prints:` line says. The ORM smoke matrix
// (scripts/packages/orm-smoke.mjs) compiles and runs them again from the packed tarballs.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const { checkDocBlocks } = (await import(`${root}scripts/docs-examples.mjs`)) as {
  checkDocBlocks: (root: string, page: string) => { problems: string[]; examples: string[] };
};
const pages = ['docs/idempotency.md', 'docs/side-effects.md'].map((page) => ({
  page,
  ...checkDocBlocks(root, page),
}));
const examples = [...new Set(pages.flatMap((p) => p.examples))];

for (const { page, problems } of pages)
  test(`${page}: every code block is a file shown verbatim, or a fragment said to be one`, () => {
    assert.deepEqual(problems, []);
  });

test('the pages show the adapters, the phases and the effects outbox as files that run', () => {
  for (const name of ['lease-express', 'fastify', 'express', 'hono', 'phases-payment', 'effects-receipt'])
    assert.ok(examples.includes(`docs/examples/idempotency/${name}.ts`), `${name}.ts is not shown`);
});

// One at a time: each is a process of its own that compiles its imports and starts a database.
describe('the examples', () => {
  for (const file of examples.filter((f) => f.startsWith('docs/examples/idempotency/'))) {
    test(`${file} runs and prints what it says`, async () => {
      const expected = /^\s*\/\/ prints: (.*)$/m.exec(readFileSync(`${root}${file}`, 'utf8'))?.[1];
      assert.ok(expected, `${file} has no "// prints:" line`);
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--conditions=@surety/source', '--import', 'tsx', `${root}${file}`],
        { cwd: `${root}packages/idempotency`, timeout: 120_000 },
      );
      assert.equal(stdout.trim(), expected);
    });
  }
});
