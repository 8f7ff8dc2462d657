// docs/side-effects.md's outbox example is a file (docs/examples/idempotency/effects-receipt.ts):
// the page shows it verbatim after its `<!-- example: … -->` marker, and it runs (PGlite, or
// PostgreSQL with DATABASE_URL) and prints what its `// prints:` line says.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const file = 'docs/examples/idempotency/effects-receipt.ts';
const source = readFileSync(`${root}${file}`, 'utf8');

test('docs/side-effects.md shows the effects outbox example verbatim', () => {
  const page = readFileSync(`${root}docs/side-effects.md`, 'utf8');
  const marker = `<!-- example: ${file} -->\n\`\`\`ts\n`;
  const at = page.indexOf(marker);
  assert.ok(at >= 0, `docs/side-effects.md has no ${marker.trim()}`);
  assert.equal(page.slice(at + marker.length, page.indexOf('```\n', at + marker.length)), source);
});

test('the effects outbox example runs and prints what it says', async () => {
  const expected = /^\s*\/\/ prints: (.*)$/m.exec(source)?.[1];
  assert.ok(expected);
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--conditions=@surety/source', '--import', 'tsx', `${root}${file}`],
    { cwd: `${root}packages/idempotency`, timeout: 120_000 },
  );
  assert.equal(stdout.trim(), expected);
});
