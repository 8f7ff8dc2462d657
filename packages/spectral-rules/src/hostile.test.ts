// Issue 30, N3 and N4: `surety-lint` on hostile input. A YAML alias bomb and a document nested
// 100,000 deep are bad input (exit 2 with a message), found before any parser expands or recurses;
// a $ref through a symlink is judged by where it really leads; a URL that redirects is not followed
// (as probe does). A loopback canary records every request.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runLintCli } from './cli.js';
import { lint } from './lint.js';

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runLintCli(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** The classic billion-laughs document: 9 levels of 9 aliases each, under 1 KB. */
const aliasBomb = () => {
  const lines = [
    'openapi: 3.1.0',
    'info: {title: t, version: "1"}',
    'a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ];
  for (let i = 1; i <= 9; i++) {
    lines.push(`a${i}: &a${i} [${Array.from({ length: 9 }, () => `*a${i - 1}`).join(',')}]`);
  }
  lines.push('paths: {}');
  return `${lines.join('\n')}\n`;
};

describe('hostile documents', { timeout: 60_000 }, () => {
  let dir: string;
  let server: Server;
  let base: string;
  const hits: string[] = [];
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'surety-hostile-'));
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/moved.json') {
        res.writeHead(302, { location: `${base}/canary.json` }).end();
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  test('a YAML alias bomb: exit 2, naming the aliases, without expanding them', async () => {
    const file = join(dir, 'bomb.yaml');
    writeFileSync(file, aliasBomb());
    assert.ok(aliasBomb().length < 1024);
    const r = await cli([file]);
    assert.equal(r.code, 2, r.err || r.out);
    assert.match(r.err, /alias/);
  });

  test('a document nested 100,000 deep: exit 2, naming the depth (JSON and YAML flow)', async () => {
    const json = join(dir, 'deep.json');
    writeFileSync(json, `{"openapi":"3.1.0","x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    const r = await cli([json]);
    assert.equal(r.code, 2, r.err || r.out);
    assert.match(r.err, /nest/);
    const yaml = join(dir, 'deep.yaml');
    writeFileSync(yaml, `openapi: 3.1.0\nx: ${'{a: '.repeat(50_000)}1${'}'.repeat(50_000)}\n`);
    const y = await cli([yaml]);
    assert.equal(y.code, 2, y.err || y.out);
    assert.match(y.err, /nest/);
  });

  test('a YAML document nested deep by indentation: exit 2', async () => {
    const file = join(dir, 'indent.yaml');
    const lines = ['openapi: 3.1.0', 'x:'];
    for (let i = 1; i <= 2000; i++) lines.push(`${' '.repeat(i)}k:`);
    lines.push(`${' '.repeat(2001)}1`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const r = await cli([file]);
    assert.equal(r.code, 2, r.err || r.out);
    assert.match(r.err, /nest/);
  });

  test("a $ref through a symlink to a file outside the document's folder is not read", async () => {
    mkdirSync(join(dir, 'api'));
    writeFileSync(join(dir, 'secret.json'), JSON.stringify({ name: 'Idempotency-Key', in: 'header' }));
    symlinkSync(join(dir, 'secret.json'), join(dir, 'api', 'link.json'));
    const doc = join(dir, 'api', 'doc.json');
    writeFileSync(
      doc,
      JSON.stringify({
        openapi: '3.1.0',
        info: { title: 't', version: '1' },
        paths: {
          '/p': {
            get: { parameters: [{ $ref: './link.json' }], responses: { '200': { description: 'ok' } } },
          },
        },
      }),
    );
    const report = await lint(doc);
    const ref = report.findings.find((f) => f.rule === 'invalid-ref');
    assert.ok(ref, JSON.stringify(report.findings));
    assert.match(ref.message, /outside the document's folder/);
  });

  test('a URL that redirects is not followed: exit 2 naming where it points; the target is never hit', async () => {
    hits.length = 0;
    const r = await cli([`${base}/moved.json`]);
    assert.equal(r.code, 2, r.err || r.out);
    assert.match(r.err, /redirect.*canary\.json/);
    assert.deepEqual(hits, ['/moved.json']);
  });
});
