// Stored responses kept small: bodies above compressAboveBytes are stored gzip-compressed and replay
// byte for byte; bodies too large even compressed are not stored, and the replay says so with
// Idempotent-Body-Omitted; onStored reports what each key takes. Both modes, both backends.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import { BODY_OMITTED_HEADER, Idempotency, type StoredInfo, type StoredResponse } from '../src/index.js';
import { decodeBody, encodeBody } from '../src/stored-body.js';

const limits = { compressAboveBytes: 2048, maxStoredBodyBytes: 1_048_576 };
// JSON as an API answers it: repetitive, so it compresses well.
const listBody = (items: number) =>
  JSON.stringify({
    object: 'list',
    data: Array.from({ length: items }, (_, i) => ({
      id: `pay_${i}`,
      amount: '1999',
      currency: 'USD',
      status: 'succeeded',
    })),
  });
// Random bytes in base64 compress to ~75 %: still stored compressed, but not under a tight cap.
const noiseBody = (bytes: number) => JSON.stringify({ noise: randomBytes(bytes).toString('base64') });

describe('encodeBody / decodeBody', () => {
  test('small bodies are text; the threshold is inclusive', () => {
    const small = encodeBody('{"id":1}', limits);
    assert.deepEqual(
      [small.encoding, small.column, small.text, small.storedBytes],
      ['text', null, '{"id":1}', 8],
    );
    const exact = 'x'.repeat(2048);
    assert.equal(encodeBody(exact, limits).encoding, 'text');
    assert.equal(encodeBody(`${exact}x`, limits).encoding, 'gzip');
  });

  test('a large body is compressed and decodes to the same string, non-ASCII included', () => {
    const body = `${listBody(200)}"€ ü 😀"`;
    const e = encodeBody(body, limits);
    assert.equal(e.encoding, 'gzip');
    assert.equal(e.text, null);
    assert.equal(e.bodyBytes, Buffer.byteLength(body));
    assert.ok(e.storedBytes < e.bodyBytes / 5, `${e.storedBytes} of ${e.bodyBytes}`);
    assert.deepEqual(decodeBody({ body: e.text, body_gzip: e.gzip, body_encoding: e.column }), {
      body,
      omitted: false,
    });
  });

  test('compression that does not pay keeps the text', () => {
    // a body of distinct random code points above the threshold: gzip output is larger
    const body = Array.from({ length: 3000 }, () =>
      String.fromCharCode(0x4e00 + Math.floor(Math.random() * 20000)),
    ).join('');
    const e = encodeBody(body, limits);
    if (e.encoding === 'gzip') assert.ok(e.storedBytes < e.bodyBytes);
    else assert.deepEqual([e.encoding, e.text], ['text', body]);
  });

  test('above the cap even compressed, nothing is stored', () => {
    const e = encodeBody(noiseBody(4000), { compressAboveBytes: 2048, maxStoredBodyBytes: 1000 });
    assert.deepEqual(
      [e.encoding, e.column, e.text, e.gzip, e.storedBytes],
      ['omitted', 'omitted', null, null, 0],
    );
    assert.deepEqual(decodeBody({ body: null, body_gzip: null, body_encoding: 'omitted' }), {
      body: '',
      omitted: true,
    });
    // with compression disabled (threshold Infinity) a body under the cap is text, over it omitted
    assert.equal(
      encodeBody('x'.repeat(500), { compressAboveBytes: Infinity, maxStoredBodyBytes: 1000 }).encoding,
      'text',
    );
    assert.equal(
      encodeBody('x'.repeat(1001), { compressAboveBytes: Infinity, maxStoredBodyBytes: 1000 }).encoding,
      'omitted',
    );
  });
});

let db: TestDatabase;
let engine: Idempotency;
let capped: Idempotency;
const seen: StoredInfo[] = [];
let n = 0;
const key = () => `body-${++n}`;
const answer = (body: string): StoredResponse => ({
  status: 201,
  headers: { 'content-type': 'application/json', location: '/v1/payments/pay_1' },
  body,
});
const row = async (k: string) =>
  (
    await db.sql.query<{ body: string | null; gz: number | null; body_encoding: string | null }>(
      `select body, octet_length(body_gzip) as gz, body_encoding from "${db.schema}".idempotency_keys where key = $1`,
      [k],
    )
  ).rows[0]!;

before(async () => {
  db = await createTestDatabase();
  engine = new Idempotency({ sql: db.sql, schema: db.schema, onStored: (i) => seen.push(i) });
  capped = new Idempotency({
    sql: db.sql,
    schema: db.schema,
    maxStoredBodyBytes: 1000,
    onStored: () => {
      throw new Error('a failing metrics callback changes nothing');
    },
  });
  await engine.migrate();
});
after(() => db.close());

describe('atomic mode', () => {
  test('a large body is stored compressed and replayed byte for byte', async () => {
    const k = key();
    const body = listBody(300);
    const req = { tenant: 't', key: k, fingerprint: 'fp' };
    const first = await engine.execute(req, async () => answer(body));
    assert.equal(first.kind, 'executed');
    const r = await row(k);
    assert.equal(r.body, null);
    assert.equal(r.body_encoding, 'gzip');
    assert.ok(Number(r.gz) > 0 && Number(r.gz) < Buffer.byteLength(body) / 5);
    const info = seen.at(-1)!;
    assert.deepEqual(info, {
      tenant: 't',
      bodyBytes: Buffer.byteLength(body),
      storedBytes: Number(r.gz),
      encoding: 'gzip',
    });
    const again = await engine.execute(req, async () => assert.fail('must not run again'));
    assert.deepEqual(again, { kind: 'replayed', response: answer(body) });
  });

  test('a small body is stored as text, as before', async () => {
    const k = key();
    await engine.execute({ tenant: 't', key: k, fingerprint: 'fp' }, async () => answer('{"id":"pay_1"}'));
    assert.deepEqual(await row(k), { body: '{"id":"pay_1"}', gz: null, body_encoding: null });
    assert.equal(seen.at(-1)!.encoding, 'text');
  });

  test('over the cap: the outcome is kept, the body is not, and the replay says so', async () => {
    const k = key();
    const req = { tenant: 't', key: k, fingerprint: 'fp' };
    const first = await capped.execute(req, async () => answer(noiseBody(4000)));
    assert.equal(first.kind, 'executed'); // the throwing onStored did not fail the request
    assert.deepEqual(await row(k), { body: null, gz: null, body_encoding: 'omitted' });
    const again = await capped.execute(req, async () => assert.fail('must not run again'));
    assert.deepEqual(again, {
      kind: 'replayed',
      response: {
        status: 201,
        headers: {
          'content-type': 'application/json',
          location: '/v1/payments/pay_1',
          [BODY_OMITTED_HEADER]: 'true',
        },
        body: '',
      },
    });
  });
});

describe('lease mode', () => {
  test('complete stores a large body compressed; the replay decompresses it', async () => {
    const k = key();
    const req = { tenant: 't', key: k, fingerprint: 'fp' };
    const acquired = await engine.acquire(req);
    assert.equal(acquired.kind, 'acquired');
    if (acquired.kind !== 'acquired') return;
    const body = listBody(100);
    await acquired.lease.complete(answer(body));
    assert.equal((await row(k)).body_encoding, 'gzip');
    assert.deepEqual(await engine.acquire(req), { kind: 'replayed', response: answer(body) });
  });
});

test('bad limits are refused when the engine is made', () => {
  for (const bad of [-1, Number.NaN, '10' as unknown as number])
    assert.throws(() => new Idempotency({ sql: db.sql, maxStoredBodyBytes: bad }), RangeError);
  assert.doesNotThrow(
    () => new Idempotency({ sql: db.sql, maxStoredBodyBytes: Infinity, compressAboveBytes: 0 }),
  );
});
