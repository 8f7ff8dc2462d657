// Surety held to its own tools: its OpenAPI document linted with the reliability ruleset, and the
// running service probed (in-process, on 127.0.0.1) with `surety probe`'s rules.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type ProbeReport, probe } from '@surety/probe';
import { lintText } from '@surety/spectral-rules/lint';
import { auth, createTestApp, KEYS, type TestApp } from './helpers.js';

let t: TestApp;
let base: string;
before(async () => {
  t = await createTestApp();
  // Real time: the probe's keys and the service's clock must agree.
  Object.defineProperty(t.clock, 'now', { get: () => Date.now(), set: () => {} });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
after(() => t.close());

const failures = (report: ProbeReport) => report.results.filter((r) => r.verdict === 'fail');
const AUTH = { authorization: `Bearer ${KEYS.acme}` };

describe("Surety's own contract", () => {
  // Before h20a's complete document it drew ~200 findings (no problem+json, no ETag / Retry-After
  // headers, If-Match undocumented).
  test('its OpenAPI document has no finding of the reliability ruleset', async () => {
    const doc = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    const report = await lintText(doc.body, { source: 'surety-openapi.json' });
    assert.deepEqual(
      report.findings.map((f) => `${f.rule}: ${f.message}`),
      [],
    );
  });
});

describe('surety probe against Surety', () => {
  test('POST /v1/payments: every Idempotency-Key rule holds (409 in flight may be inconclusive)', async () => {
    const report = await probe({
      url: `${base}/v1/payments`,
      headers: AUTH,
      body: '{"amount":"1999","currency":"EUR","customerId":"cus_{{uuid}}"}',
      minIntervalMs: 0,
    });
    // "k" and k are one key (issue 20's fix), and PGlite answers a duplicate in flight with 409 at
    // once as PostgreSQL does: no MUST or SHOULD fails on either backend.
    assert.deepEqual(
      failures(report).map((r) => `${r.id}: ${r.detail}`),
      [],
    );
    const verdicts = Object.fromEntries(report.results.map((r) => [r.id, r.verdict]));
    for (const id of [
      'replay',
      'replay-header',
      'reuse-422',
      'in-flight-once',
      'missing-key-400',
      'key-length',
    ])
      assert.equal(verdicts[id], 'pass', id);
    assert.notEqual(verdicts['in-flight-409'], 'fail');
    assert.equal(verdicts['quoted-key'], 'pass');
  });

  test('PATCH /v1/orders/:id: every precondition rule holds, 428 included', async () => {
    const id = `ord_probe_${process.pid}`;
    const created = await t.app.inject({
      method: 'PUT',
      url: `/v1/orders/${id}`,
      headers: { ...auth('acme'), 'content-type': 'application/json', 'if-none-match': '*' },
      payload: JSON.stringify({ customerId: 'cus_1', items: [{ sku: 'sku_1', quantity: 1 }] }),
    });
    assert.equal(created.statusCode, 201);
    const report = await probe({
      url: `${base}/v1/orders/${id}`,
      method: 'PATCH',
      headers: { ...AUTH, 'content-type': 'application/merge-patch+json' },
      body: '{"metadata":{"probe":"{{uuid}}"}}',
      minIntervalMs: 0,
    });
    assert.deepEqual(
      Object.fromEntries(report.results.map((r) => [r.id, r.verdict])),
      {
        'etag-304': 'pass',
        'stale-412': 'pass',
        'weak-412': 'pass',
        'current-proceeds': 'pass',
        'missing-428': 'pass',
      },
      JSON.stringify(report.results, null, 2),
    );
  });
});

describe('surety lint and surety probe, as commands', () => {
  const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
  const run = (args: string[]) =>
    new Promise<{ code: number; output: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        ['--conditions=@surety/source', '--import', 'tsx', cli, ...args],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let output = '';
      child.stdout.on('data', (c: Buffer) => (output += c));
      child.stderr.on('data', (c: Buffer) => (output += c));
      child.on('exit', (code) => resolve({ code: code ?? -1, output }));
    });

  test('surety lint exits 1 on an error-severity finding and names the rule; probe refuses ftp:', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'surety-lint-cli-'));
    try {
      const file = join(dir, 'api.yaml');
      writeFileSync(
        file,
        "openapi: 3.1.0\ninfo: { title: t, version: '1' }\npaths:\n  /charges:\n    post:\n      responses: { '201': { description: ok } }\n",
      );
      const lint = await run(['lint', file]);
      assert.equal(lint.code, 1, lint.output);
      assert.match(lint.output, /surety-post-idempotency-key\s+POST \/charges is unsafe/);
      const probed = await run(['probe', 'ftp://127.0.0.1/x']);
      assert.equal(probed.code, 2, probed.output);
      assert.match(probed.output, /refused: ftp:/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
