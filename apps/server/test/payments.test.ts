import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPgliteSql, createPgSql, type Sql } from '@surety/db';
import { needsPostgres } from '@surety/db/testing';
import { buildApp } from '../src/app.js';
import { parseApiKeys } from '../src/config.js';
import {
  API_KEYS,
  auth,
  createTestApp,
  newKey,
  PAYMENT,
  postPayment,
  problem,
  type TestApp,
  waitForLockWait,
} from './helpers.js';

let t: TestApp;
before(async () => {
  t = await createTestApp({ ttlMs: 60_000 });
});
after(() => t.close());

const payments = () => t.count('payments');
const keys = () => t.count('idempotency_keys');

describe('idempotency semantics (one test per row of docs/idempotency.md)', () => {
  test('no key on a route that requires one → 400 saying how to send one; nothing written', async () => {
    const before = await payments();
    const res = await postPayment(t.app, PAYMENT);
    const body = problem(res, 400, 'idempotency_key_missing');
    assert.match(body.detail, /Idempotency-Key header/);
    assert.equal(await payments(), before);
  });

  test('empty, too long or non-visible-ASCII key → 400', async () => {
    const before = await payments();
    for (const bad of ['', 'x'.repeat(256), 'has space', 'caf\u00e9']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/payments',
        headers: { 'content-type': 'application/json', ...auth('acme'), 'idempotency-key': bad },
        payload: JSON.stringify(PAYMENT),
      });
      problem(res, 400, 'idempotency_key_invalid');
    }
    const ok = await postPayment(t.app, PAYMENT, { 'idempotency-key': 'x'.repeat(255) });
    assert.equal(ok.statusCode, 201);
    assert.equal(await payments(), before + 1);
  });

  test('first time: runs, commits with the key, answers 201 with Location', async () => {
    const key = newKey();
    const res = await postPayment(t.app, PAYMENT, { 'idempotency-key': key });
    assert.equal(res.statusCode, 201);
    const payment = res.json();
    assert.match(payment.id, /^pay_[0-9A-Za-z]{22}$/);
    assert.deepEqual(
      {
        amount: payment.amount,
        currency: payment.currency,
        customerId: payment.customerId,
        status: payment.status,
      },
      { amount: '1999', currency: 'USD', customerId: 'cus_9', status: 'succeeded' },
    );
    assert.equal(res.headers.location, `/v1/payments/${payment.id}`);
    assert.equal(res.headers['idempotent-replayed'], undefined);
    assert.equal(await t.count('payments', 'id = $1', [payment.id]), 1);
    assert.equal(
      await t.count('idempotency_keys', `key = $1 and state = 'completed' and tenant = 'acme'`, [key]),
      1,
    );
  });

  test('same key, same request (reordered JSON): the stored status, body and headers, Idempotent-Replayed: true', async () => {
    const key = newKey();
    const first = await postPayment(t.app, PAYMENT, { 'idempotency-key': key });
    const before = await payments();
    const again = await postPayment(t.app, '{ "customerId":"cus_9",  "currency":"USD", "amount":"1999" }', {
      'idempotency-key': key,
    });
    assert.equal(again.statusCode, 201);
    assert.equal(again.body, first.body, 'byte-identical body');
    assert.equal(again.headers.location, first.headers.location);
    assert.equal(again.headers['content-type'], first.headers['content-type']);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(await payments(), before);
  });

  test('same key while the original is in flight → 409 with Retry-After, at once', {
    skip: needsPostgres,
  }, async () => {
    // Hold the payments table from another connection so the original blocks inside its transaction.
    const blocker = t.db.connect(1);
    const key = newKey();
    let original: Promise<{ statusCode: number }> | undefined;
    try {
      await blocker.transaction(async (tx) => {
        await tx.query(`lock table "${t.db.schema}".payments in exclusive mode`);
        original = postPayment(t.app, PAYMENT, { 'idempotency-key': key });
        await waitForLockWait(t.db.sql, t.db.schema);
        const started = Date.now();
        const res = await postPayment(t.app, PAYMENT, { 'idempotency-key': key });
        problem(res, 409, 'idempotency_key_in_use');
        assert.equal(res.headers['retry-after'], '1');
        assert.ok(Date.now() - started < 1000);
      });
      assert.equal((await original!).statusCode, 201);
      const replay = await postPayment(t.app, PAYMENT, { 'idempotency-key': key });
      assert.equal(replay.headers['idempotent-replayed'], 'true');
    } finally {
      await blocker.close();
    }
  });

  test('same key, different request → 422; nothing written', async () => {
    const key = newKey();
    await postPayment(t.app, PAYMENT, { 'idempotency-key': key });
    const before = await payments();
    const res = await postPayment(t.app, { ...PAYMENT, amount: '2000' }, { 'idempotency-key': key });
    problem(res, 422, 'idempotency_key_reused');
    assert.equal(await payments(), before);
  });

  test('a key older than its TTL is a new operation; the purge removes expired keys and keeps live ones', async () => {
    const key = newKey();
    const first = await postPayment(t.app, PAYMENT, { 'idempotency-key': key });
    t.clock.now += 61_000; // TTL is 60 s in this file
    const live = newKey();
    await postPayment(t.app, PAYMENT, { 'idempotency-key': live });
    const second = await postPayment(t.app, PAYMENT, { 'idempotency-key': key });
    assert.equal(second.statusCode, 201);
    assert.notEqual(second.json().id, first.json().id);
    assert.equal(second.headers['idempotent-replayed'], undefined);
    t.clock.now += 30_000;
    const expiredBefore = await t.count('idempotency_keys', 'expires_at <= $1', [
      new Date(t.clock.now).toISOString(),
    ]);
    assert.ok(expiredBefore > 0);
    const purged = await t.app.idempotency.purgeExpired({ batchSize: 2 });
    assert.equal(purged, expiredBefore);
    assert.equal(await t.count('idempotency_keys', 'key = $1', [live]), 1);
    assert.equal(await t.count('idempotency_keys', 'key = $1', [key]), 1, 're-created key is live');
  });

  test('the commit failing answers 5xx, never 2xx, and leaves no payment and no key', async () => {
    const s = `"${t.db.schema}"`;
    await t.db.sql.query(`create function ${s}.reject_666() returns trigger language plpgsql as
      $$ begin if new.amount = 666 then raise exception 'rejected at commit'; end if; return null; end $$`);
    await t.db.sql.query(`create constraint trigger reject_666 after insert on ${s}.payments
      deferrable initially deferred for each row execute function ${s}.reject_666()`);
    const key = newKey();
    const before = await payments();
    const keysBefore = await keys();
    const res = await postPayment(t.app, { ...PAYMENT, amount: '666' }, { 'idempotency-key': key });
    problem(res, 500, 'internal_error');
    assert.equal(await payments(), before);
    assert.equal(await keys(), keysBefore);
  });

  test('the store unreachable → 503, the handler never runs unprotected', async () => {
    let dead: Sql;
    if (t.db.backend === 'pg') {
      dead = createPgSql({
        connectionString: 'postgres://postgres@127.0.0.1:1/none',
        connectionTimeoutMillis: 300,
      });
    } else {
      dead = await createPgliteSql();
      await dead.close();
    }
    const app = await buildApp({
      sql: dead,
      config: {
        apiKeys: parseApiKeys(API_KEYS),
        bodyLimit: 65_536,
        idempotencyTtlMs: 60_000,
        schema: t.db.schema,
      },
    });
    try {
      const res = await postPayment(app, PAYMENT, { 'idempotency-key': newKey() });
      problem(res, 503, 'idempotency_store_unavailable');
      assert.equal(res.headers['retry-after'], '1');
      problem(
        await app.inject({ method: 'GET', url: '/v1/payments', headers: auth('acme') }),
        503,
        'database_unavailable',
      );
      assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 503);
    } finally {
      await app.close();
      await dead.close().catch(() => {});
    }
  });
});

describe('tenants', () => {
  test('the same key in two tenants is two payments; neither can read the other', async () => {
    const key = newKey();
    const a = await postPayment(t.app, PAYMENT, { 'idempotency-key': key });
    const b = await postPayment(t.app, PAYMENT, { 'idempotency-key': key, ...auth('globex') });
    assert.equal(a.statusCode, 201);
    assert.equal(b.statusCode, 201);
    assert.equal(b.headers['idempotent-replayed'], undefined);
    assert.notEqual(a.json().id, b.json().id);
    const crossRead = await t.app.inject({
      method: 'GET',
      url: `/v1/payments/${a.json().id}`,
      headers: auth('globex'),
    });
    problem(crossRead, 404, 'not_found');
    const ownRead = await t.app.inject({
      method: 'GET',
      url: `/v1/payments/${a.json().id}`,
      headers: auth('acme'),
    });
    assert.equal(ownRead.statusCode, 200);
    assert.deepEqual(ownRead.json(), a.json());
    const list = await t.app.inject({
      method: 'GET',
      url: '/v1/payments?limit=100',
      headers: auth('globex'),
    });
    assert.ok(list.json().data.every((p: { id: string }) => p.id !== a.json().id));
  });

  test('no key or a wrong key → 401 problem+json; health checks are public', async () => {
    const none = await t.app.inject({ method: 'GET', url: '/v1/payments' });
    problem(none, 401, 'unauthorized');
    assert.match(String(none.headers['www-authenticate']), /^Bearer/);
    problem(
      await t.app.inject({ method: 'GET', url: '/v1/payments', headers: { authorization: 'Bearer nope' } }),
      401,
      'unauthorized',
    );
    problem(
      await t.app.inject({ method: 'GET', url: '/v1/payments', headers: { authorization: `Basic ${'x'}` } }),
      401,
      'unauthorized',
    );
    assert.equal((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
    problem(await t.app.inject({ method: 'GET', url: '/nope', headers: auth('acme') }), 404, 'not_found');
  });
});

describe('bad input → a clear 4xx with a stable code, nothing written', () => {
  const cases: [string, unknown, Record<string, string>, number, string][] = [
    ['invalid JSON', '{"amount": "1999",', {}, 400, 'invalid_json'],
    ['empty JSON body', '', {}, 400, 'invalid_json'],
    ['amount as a number', { ...PAYMENT, amount: 1999 }, {}, 400, 'validation_failed'],
    ['amount zero', { ...PAYMENT, amount: '0' }, {}, 400, 'validation_failed'],
    ['amount negative', { ...PAYMENT, amount: '-5' }, {}, 400, 'validation_failed'],
    ['amount not an integer', { ...PAYMENT, amount: '19.99' }, {}, 400, 'validation_failed'],
    ['amount too many digits', { ...PAYMENT, amount: '1'.repeat(19) }, {}, 400, 'validation_failed'],
    ['unknown currency', { ...PAYMENT, currency: 'XYZ' }, {}, 400, 'validation_failed'],
    ['lower-case currency', { ...PAYMENT, currency: 'usd' }, {}, 400, 'validation_failed'],
    ['missing customerId', { amount: '1', currency: 'USD' }, {}, 400, 'validation_failed'],
    ['unknown field', { ...PAYMENT, admin: true }, {}, 400, 'validation_failed'],
    ['array body', [PAYMENT], {}, 400, 'validation_failed'],
    ['body over 64 KiB', { ...PAYMENT, customerId: 'c'.repeat(70_000) }, {}, 413, 'body_too_large'],
    ['text/plain', JSON.stringify(PAYMENT), { 'content-type': 'text/plain' }, 415, 'unsupported_media_type'],
  ];
  for (const [name, body, headers, status, code] of cases) {
    test(name, async () => {
      const before = await payments();
      const keysBefore = await keys();
      const res = await postPayment(t.app, body, { 'idempotency-key': newKey(), ...headers });
      const p = problem(res, status, code);
      assert.ok(p.detail.length > 0);
      assert.equal(await payments(), before);
      assert.equal(await keys(), keysBefore);
    });
  }

  test('validation failures name the failing fields', async () => {
    const res = await postPayment(t.app, { amount: 5, extra: 1 }, { 'idempotency-key': newKey() });
    const body = problem(res, 400, 'validation_failed') as unknown as { errors: { path: string }[] };
    const paths = body.errors.map((e) => e.path).sort();
    assert.deepEqual(paths, ['/amount', '/currency', '/customerId', '/extra']);
  });

  test('a bad cursor or limit → 400', async () => {
    problem(
      await t.app.inject({ method: 'GET', url: '/v1/payments?cursor=zzz', headers: auth('acme') }),
      400,
      'invalid_cursor',
    );
    // Microsecond cursors: forged ones are refused before PostgreSQL sees them; the extremes of
    // the accepted form are instants PostgreSQL takes.
    const c = (at: string) => Buffer.from(JSON.stringify([at, 'pay_x'])).toString('base64url');
    for (const at of [
      '2026-02-30T00:00:00.000001Z',
      '2026-06-01T24:00:00.000001Z',
      '0000-12-31T23:59:59.999999Z',
      '2026-06-01T12:00:00.1234567Z',
      '2026-06-01T12:00:00.123000Z',
    ]) {
      problem(
        await t.app.inject({ method: 'GET', url: `/v1/payments?cursor=${c(at)}`, headers: auth('acme') }),
        400,
        'invalid_cursor',
      );
    }
    for (const at of ['0001-01-01T00:00:00.000001Z', '9999-12-31T23:59:59.999999Z']) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/v1/payments?cursor=${c(at)}`,
        headers: auth('acme'),
      });
      assert.equal(res.statusCode, 200, at);
    }
    problem(
      await t.app.inject({ method: 'GET', url: '/v1/payments?limit=0', headers: auth('acme') }),
      400,
      'validation_failed',
    );
    problem(
      await t.app.inject({ method: 'GET', url: '/v1/payments?limit=abc', headers: auth('acme') }),
      400,
      'validation_failed',
    );
  });
});

describe('listing', () => {
  test('cursor pagination by customer, newest first, no duplicates or gaps', async () => {
    const customerId = `cus_${newKey()}`;
    const created: string[] = [];
    for (let i = 0; i < 7; i++) {
      t.clock.now += 1;
      const res = await postPayment(
        t.app,
        { ...PAYMENT, customerId, amount: String(100 + i) },
        { 'idempotency-key': newKey() },
      );
      created.push(res.json().id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const url: string = `/v1/payments?customerId=${customerId}&limit=3${cursor ? `&cursor=${cursor}` : ''}`;
      const page = (await t.app.inject({ method: 'GET', url, headers: auth('acme') })).json();
      seen.push(...page.data.map((p: { id: string }) => p.id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    assert.equal(pages, 3);
    assert.deepEqual(new Set(seen), new Set(created));
    assert.equal(seen.length, created.length);
  });

  test('a page that ends inside a millisecond resumes after its last row (microsecond created_at)', async () => {
    // Rows written by SQL (an import, now() in a script) keep microseconds: seven in one
    // millisecond, two pairs tied, and one on either side of it.
    const customerId = `cus_${newKey()}`;
    const ids: string[] = [];
    for (let i = 0; i < 9; i++) {
      const res = await postPayment(t.app, { ...PAYMENT, customerId }, { 'idempotency-key': newKey() });
      ids.push(res.json().id);
    }
    const base = '2026-11-30T10:00:03.123';
    const times = ['000', '001', '456', '456', '999', '500', '500'].map((us) => `${base}${us}Z`);
    times.push('2026-11-30T10:00:03.122999Z', '2026-11-30T10:00:03.124000Z');
    for (const [i, id] of ids.entries()) {
      await t.db.sql.query(
        `update "${t.db.schema}".payments set created_at = $2::timestamptz where tenant = 'acme' and id = $1`,
        [id, times[i]],
      );
    }
    const { rows } = await t.db.sql.query<{ id: string }>(
      `select id from "${t.db.schema}".payments where tenant = 'acme' and customer_id = $1
        order by created_at desc, id desc`,
      [customerId],
    );
    const expected = rows.map((r) => r.id);
    for (const limit of [1, 2, 3, 4]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let pages = 0; pages < 20; pages++) {
        const url: string = `/v1/payments?customerId=${customerId}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
        const page = (await t.app.inject({ method: 'GET', url, headers: auth('acme') })).json();
        seen.push(...page.data.map((p: { id: string }) => p.id));
        cursor = page.nextCursor;
        if (!cursor) break;
      }
      assert.deepEqual(seen, expected, `pages of ${limit}`);
    }
  });
});

describe('concurrency on PostgreSQL', { skip: needsPostgres }, () => {
  test('50 concurrent requests with one new key: one payment; every other answer a 409 or a byte-identical replay', async () => {
    const key = newKey();
    const customerId = `cus_${key}`;
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        postPayment(t.app, { ...PAYMENT, customerId }, { 'idempotency-key': key }),
      ),
    );
    assert.equal(await t.count('payments', 'customer_id = $1', [customerId]), 1);
    const created = responses.filter(
      (r) => r.statusCode === 201 && r.headers['idempotent-replayed'] === undefined,
    );
    assert.equal(created.length, 1);
    for (const r of responses) {
      if (r === created[0]) continue;
      if (r.statusCode === 409) {
        problem(r, 409, 'idempotency_key_in_use');
        continue;
      }
      assert.equal(r.statusCode, 201);
      assert.equal(r.headers['idempotent-replayed'], 'true');
      assert.equal(r.body, created[0]!.body);
    }
  });
});

describe('deadlines from @surety/fetch', { skip: needsPostgres }, () => {
  test('a caller whose deadline passes gets 504 at once; the write is rolled back and the retry runs it once', async () => {
    const blocker = t.db.connect(1);
    const key = newKey();
    const customerId = `cus_deadline_${key}`;
    try {
      let late: Awaited<ReturnType<typeof postPayment>> | undefined;
      await blocker.transaction(async (tx) => {
        await tx.query(`lock table "${t.db.schema}".payments in exclusive mode`);
        const pending = postPayment(
          t.app,
          { ...PAYMENT, customerId },
          { 'idempotency-key': key, 'surety-timeout-ms': '200' },
        );
        await waitForLockWait(t.db.sql, t.db.schema);
        late = await pending; // answered by the deadline while the insert still waits on the lock
      });
      problem(late!, 504, 'deadline_exceeded');
      // the 504 said "outcome unknown": the original rolls back once the lock is released, and the
      // retry (409 while the original is still finishing) then creates the payment exactly once
      let retry = await postPayment(t.app, { ...PAYMENT, customerId }, { 'idempotency-key': key });
      for (let i = 0; i < 100 && retry.statusCode === 409; i++) {
        await new Promise((r) => setTimeout(r, 20));
        retry = await postPayment(t.app, { ...PAYMENT, customerId }, { 'idempotency-key': key });
      }
      assert.equal(retry.statusCode, 201);
      const again = await postPayment(t.app, { ...PAYMENT, customerId }, { 'idempotency-key': key });
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(await t.count('payments', 'customer_id = $1', [customerId]), 1);
    } finally {
      await blocker.close();
    }
  });
});

// bench/idempotency's baseline ("surety-off") builds the app with idempotentPayments: false. The
// route then has no idempotency config, which the OpenAPI builder refused at start (every unsafe
// route must say): the benchmark's baseline server exited 1 on every run from 3 Dec to 6 Dec.
test('without the idempotency layer (the benchmark baseline) the app starts and a keyless POST creates a payment', async () => {
  const bare = await createTestApp({ idempotentPayments: false });
  try {
    const res = await postPayment(bare.app, PAYMENT);
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(await bare.count('payments'), 1);
    assert.equal(await bare.count('idempotency_keys'), 0);
  } finally {
    await bare.close();
  }
});
