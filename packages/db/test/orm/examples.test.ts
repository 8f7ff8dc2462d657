// The examples of docs/orm.md are files (docs/examples/orm/*.ts) that this test runs, on PGlite and
// on PostgreSQL (DATABASE_URL), comparing what each prints with its `// prints:` line; and the page
// shows each one verbatim after its `<!-- example: … -->` marker. tsconfig.test.json compiles them.
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
const page = readFileSync(join(root, 'docs/orm.md'), 'utf8');

test('docs/orm.md shows every example verbatim', () => {
  assert.ok(files.length >= 6, files.join());
  for (const file of files) {
    const marker = `<!-- example: docs/examples/orm/${file} -->\n\`\`\`ts\n`;
    const at = page.indexOf(marker);
    assert.ok(at >= 0, `docs/orm.md has no ${marker.trim()}`);
    const shown = page.slice(at + marker.length, page.indexOf('```\n', at + marker.length));
    assert.equal(shown, readFileSync(join(dir, file), 'utf8'), `docs/orm.md's copy of ${file} differs`);
  }
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
