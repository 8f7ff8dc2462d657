// A document to lint may be hostile: its $refs must not make the linter fetch a URL (SSRF) or read
// a file outside the document's folder, unless asked. A loopback canary server records every hit.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { lint } from './lint.js';

const KEY_PARAM = {
  name: 'Idempotency-Key',
  in: 'header',
  description: 'Kept for 24 hours.',
  schema: { type: 'string' },
};

/** A POST whose only parameter is a $ref to `ref`: it passes the key rule only if `ref` was followed. */
const docWithRef = (ref: string) =>
  JSON.stringify({
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {
      '/payments': {
        post: {
          parameters: [{ $ref: ref }],
          responses: {
            '201': { description: 'ok' },
            '409': { description: 'in flight' },
            '422': { description: 'reused' },
          },
        },
      },
    },
  });

describe('$refs are not followed unless asked', () => {
  let server: Server;
  let base: string;
  const hits: string[] = [];
  let dir: string;
  before(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      if (req.url === '/doc.json') res.end(docWithRef('./param.json'));
      else res.end(JSON.stringify(KEY_PARAM));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = mkdtempSync(join(tmpdir(), 'surety-refs-'));
    mkdirSync(join(dir, 'api'));
    writeFileSync(join(dir, 'api', 'param.json'), JSON.stringify(KEY_PARAM));
    writeFileSync(join(dir, 'secret.json'), JSON.stringify(KEY_PARAM));
  });
  after(async () => {
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  test('a file with a remote $ref: the canary is never hit, and the finding says why', async () => {
    hits.length = 0;
    const file = join(dir, 'api', 'remote.json');
    writeFileSync(file, docWithRef(`${base}/param.json`));
    const report = await lint(file);
    assert.deepEqual(hits, []);
    const ref = report.findings.find((f) => f.rule === 'invalid-ref');
    assert.match(ref!.message, /not followed: http:\/\/127\.0\.0\.1:\d+\/param\.json .*--refs remote/);
    assert.ok(report.findings.some((f) => f.rule === 'surety-post-idempotency-key'));
  });

  test('a document read from a URL: the document is fetched, its relative $ref is not', async () => {
    hits.length = 0;
    const report = await lint(`${base}/doc.json`);
    assert.deepEqual(hits, ['/doc.json']);
    assert.ok(report.findings.some((f) => f.rule === 'invalid-ref'));
  });

  test('refs: "remote" follows it (the canary works)', async () => {
    hits.length = 0;
    const file = join(dir, 'api', 'remote.json');
    const report = await lint(file, { refs: 'remote' });
    assert.deepEqual(hits, ['/param.json']);
    assert.deepEqual(report.findings, []);
  });

  test('a file ref inside the document folder is followed; one outside it is refused', async () => {
    const inside = join(dir, 'api', 'inside.json');
    writeFileSync(inside, docWithRef('./param.json'));
    assert.deepEqual((await lint(inside)).findings, []);
    const outside = join(dir, 'api', 'outside.json');
    writeFileSync(outside, docWithRef('../secret.json'));
    const report = await lint(outside);
    assert.match(
      report.findings.find((f) => f.rule === 'invalid-ref')!.message,
      /outside the document's folder/,
    );
    assert.equal((await lint(outside, { refs: 'none' })).errors > 0, true);
  });

  test('lint refuses a URL that is not http(s)', async () => {
    await assert.rejects(lint('ftp://127.0.0.1/doc.json'), {
      code: 'SURETY_LINT_INPUT',
      message: /refused: ftp:/,
    });
    await assert.rejects(lint('file:///etc/passwd'), { code: 'SURETY_LINT_INPUT' });
  });
});
