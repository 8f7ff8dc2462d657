// Every result union is tagged `kind` (issue 16): narrowing on it reaches each variant's fields,
// and the older tags (`outcome`, `ok`/`any`, `proceed`) say the same thing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Hono } from 'hono';
import { versionETag } from './etag.js';
import { evaluatePreconditions, type PreconditionResult } from './evaluate.js';
import { checkPreconditions } from './hono.js';
import { type ETagListParse, parseETagList } from './parse.js';

const current = { exists: true, etag: versionETag(7) };

/** What a caller reads after narrowing on `kind` alone (a compile error if a variant lacked it). */
function describe(r: PreconditionResult): string {
  switch (r.kind) {
    case 'proceed':
      return `proceed ifMatch=${r.ifMatch} conditional=${r.conditional}`;
    case 'not_modified':
      return `304 ${r.header}`;
    case 'precondition_failed':
      return `412 ${r.header}`;
    case 'precondition_required':
      return `${r.status}`;
    case 'malformed_precondition':
      return `400 ${r.header}: ${r.detail}`;
  }
}

test('evaluatePreconditions: kind is the discriminant, outcome the same value', () => {
  const cases: [Record<string, string>, string, string][] = [
    [{}, 'PUT', '428'],
    [{ 'if-match': versionETag(7).toString() }, 'PUT', 'proceed ifMatch=true conditional=true'],
    [{ 'if-match': '"other"' }, 'PUT', '412 if-match'],
    [{ 'if-none-match': versionETag(7).toString() }, 'GET', '304 if-none-match'],
    [{ 'if-match': 'unquoted' }, 'PUT', '400 if-match: '],
  ];
  for (const [headers, method, expected] of cases) {
    const r = evaluatePreconditions({ method, headers, current, require: true });
    assert.equal(r.kind, r.outcome);
    assert.ok(describe(r).startsWith(expected), `${describe(r)} for ${JSON.stringify(headers)}`);
  }
});

test('parseETagList: kind any | tags | invalid, with ok and any saying the same', () => {
  const read = (p: ETagListParse) =>
    p.kind === 'any' ? '*' : p.kind === 'tags' ? p.tags.map((t) => t.opaque).join(',') : `! ${p.detail}`;
  assert.equal(read(parseETagList('*')), '*');
  assert.equal(read(parseETagList('"a", W/"b"')), 'a,b');
  assert.match(read(parseETagList('abc')), /^! /);
  for (const v of ['*', '"a"', 'abc']) {
    const p = parseETagList(v);
    assert.equal(p.ok, p.kind !== 'invalid');
    if (p.ok) assert.equal(p.any, p.kind === 'any');
  }
});

test('the adapters: kind proceed | stop, with proceed saying the same', async () => {
  const seen: string[] = [];
  const app = new Hono();
  app.put('/x', (c) => {
    const check = checkPreconditions(c, { current, require: true });
    assert.equal(check.proceed, check.kind === 'proceed');
    if (check.kind === 'stop') {
      seen.push(`stop ${check.result.kind}`);
      return check.response;
    }
    seen.push(`proceed ${check.result.ifMatch}`);
    return c.body(null, 204);
  });
  assert.equal((await app.request('/x', { method: 'PUT' })).status, 428);
  const ok = await app.request('/x', { method: 'PUT', headers: { 'if-match': versionETag(7).toString() } });
  assert.equal(ok.status, 204);
  assert.deepEqual(seen, ['stop precondition_required', 'proceed true']);
});
