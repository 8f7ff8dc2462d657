// `surety-lint` as a user and a CI job run it, and Spectral's own CLI with `extends` on the package.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { BREAKERS, goodDocument } from '../test/fixtures.js';
import { runLintCli } from './cli.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../../', import.meta.url));

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runLintCli(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('surety-lint', () => {
  let dir: string;
  let good: string;
  let bad: string;
  let warnOnly: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'surety-lint-'));
    good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify(goodDocument(), null, 2));
    const doc = goodDocument();
    BREAKERS.find((b) => b.rule === 'surety-post-idempotency-key')!.mutate(doc);
    bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify(doc, null, 2));
    const warn = goodDocument();
    BREAKERS.find((b) => b.rule === 'surety-retry-after')!.mutate(warn);
    warnOnly = join(dir, 'warn.json');
    writeFileSync(warnOnly, JSON.stringify(warn, null, 2));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('exits 0 on a clean document, 1 when an error-severity rule fails, with the fix and the link', async () => {
    assert.equal((await cli([good])).code, 0);
    const r = await cli([bad]);
    assert.equal(r.code, 1);
    assert.match(r.out, /error\s+surety-post-idempotency-key\s+POST \/search is unsafe/);
    assert.match(r.out, /contracts\.md#surety-post-idempotency-key/);
    assert.match(r.out, /1 error, 0 warnings/);
  });

  test('a warning fails only with --fail-on warn', async () => {
    assert.equal((await cli([warnOnly])).code, 0);
    assert.equal((await cli([warnOnly, '--fail-on', 'warn'])).code, 1);
  });

  test('--json prints the report', async () => {
    const r = await cli([bad, '--json']);
    const report = JSON.parse(r.out);
    assert.equal(report.errors, 1);
    assert.equal(report.findings[0].rule, 'surety-post-idempotency-key');
    assert.deepEqual(report.findings[0].path, ['paths', '/search', 'post']);
  });

  test('usage and input problems exit 2', async () => {
    assert.equal((await cli([])).code, 2);
    assert.equal((await cli([good, '--refs', 'all'])).code, 2);
    const missing = await cli([join(dir, 'nope.json')]);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /cannot read .*ENOENT/);
    assert.equal((await cli(['gopher://127.0.0.1/x'])).code, 2);
  });

  test('Spectral\'s own CLI takes the ruleset with extends: ["@surety/spectral-rules"]', async (t) => {
    const spectral = join(root, 'node_modules', '.bin', 'spectral');
    if (!existsSync(join(root, 'packages/spectral-rules/dist/index.js')) || !existsSync(spectral)) {
      t.skip('needs `npx tsc -b` (Spectral bundles dist/index.js) and @stoplight/spectral-cli');
      return;
    }
    // A project of its own: the ruleset file and a node_modules where the package is installed.
    const project = mkdtempSync(join(tmpdir(), 'surety-spectral-'));
    try {
      symlinkSync(join(root, 'node_modules'), join(project, 'node_modules'));
      writeFileSync(join(project, '.spectral.yaml'), 'extends: ["@surety/spectral-rules"]\n');
      const options = { cwd: project, env: { ...process.env, SCARF_ANALYTICS: 'false' } };
      await run(spectral, ['lint', good, '--fail-severity', 'error'], options);
      const failed = await run(spectral, ['lint', bad, '--format', 'json', '--quiet'], options).then(
        () => assert.fail('spectral exited 0 on a failing document'),
        (e: { code: number; stdout: string }) => e,
      );
      assert.equal(failed.code, 1);
      const results = JSON.parse(failed.stdout) as { code: string }[];
      assert.deepEqual(
        results.map((r) => r.code),
        ['surety-post-idempotency-key'],
      );
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
