// The NestJS example of docs/orm.md (docs/examples/nestjs/app.ts) as an application builds it: decorators
// compiled by tsc (experimentalDecorators, emitDecoratorMetadata), run by plain node on the built
// packages, and what it prints checked against its `// prints:` line. Both backends.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { directOnly } from '@surety/db/testing';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const project = join(root, 'docs/examples/nestjs');
const out = join(root, '.tmp', `nestjs-example-${randomBytes(4).toString('hex')}`);
const run = promisify(execFile);
after(() => rm(out, { recursive: true, force: true }));

test('the NestJS example compiles with tsc and prints what its comments say', {
  skip: directOnly,
}, async () => {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  await run(process.execPath, [tsc, '-p', project, '--outDir', out], { cwd: root, timeout: 180_000 });
  // Plain node on the emitted JavaScript: @surety/* resolve to their built dist, as in an application.
  const { stdout } = await run(process.execPath, [join(out, 'app.js')], { cwd: root, timeout: 120_000 });
  const expected = /^\s*\/\/ prints: (.*)$/m.exec(readFileSync(join(project, 'app.ts'), 'utf8'))?.[1];
  assert.ok(expected, 'app.ts has no "// prints:" line');
  assert.equal(stdout.trim(), expected);
});
