import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { needsPostgres } from '@surety/db/testing';
import type { FastifyInstance } from 'fastify';
import { auth, createTestApp, newKey, problem, type TestApp } from './helpers.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const ORDER = { customerId: 'cus_1', items: [{ sku: 'sku_1', quantity: 2 }] };
let n = 0;
const orderId = () => `ord_${process.pid}_${++n}`;

function req(
  app: FastifyInstance,
  method: 'GET' | 'PUT' | 'PATCH' | 'POST',
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  return app.inject({
    method,
    url,
    headers: {
      ...auth('acme'),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

describe('orders: PUT with preconditions', () => {
  test('If-None-Match: * creates once; the second create is 412', async () => {
    const id = orderId();
    const created = await req(t.app, 'PUT', `/v1/orders/${id}`, ORDER, { 'if-none-match': '*' });
    assert.equal(created.statusCode, 201);
    assert.equal(created.headers.etag, '"v1"');
    assert.equal(created.headers.location, `/v1/orders/${id}`);
    assert.equal(created.json().status, 'open');
    problem(
      await req(t.app, 'PUT', `/v1/orders/${id}`, ORDER, { 'if-none-match': '*' }),
      412,
      'precondition_failed',
    );
  });

  test('replacing needs If-Match: 428 without, 412 when stale, 200 with a new ETag when current', async () => {
    const id = orderId();
    await req(t.app, 'PUT', `/v1/orders/${id}`, ORDER);
    problem(await req(t.app, 'PUT', `/v1/orders/${id}`, ORDER), 428, 'precondition_required');
    problem(
      await req(t.app, 'PUT', `/v1/orders/${id}`, ORDER, { 'if-match': '"v9"' }),
      412,
      'precondition_failed',
    );
    const replaced = await req(
      t.app,
      'PUT',
      `/v1/orders/${id}`,
      { ...ORDER, customerId: 'cus_2' },
      { 'if-match': '"v1"' },
    );
    assert.equal(replaced.statusCode, 200);
    assert.equal(replaced.headers.etag, '"v2"');
    assert.equal(replaced.json().customerId, 'cus_2');
    problem(
      await req(t.app, 'PUT', `/v1/orders/${id}`, ORDER, { 'if-match': 'not-a-tag' }),
      400,
      'malformed_precondition',
    );
  });

  test('GET returns the ETag; If-None-Match with it → 304; the ETag changes on every write', async () => {
    const id = orderId();
    await req(t.app, 'PUT', `/v1/orders/${id}`, ORDER);
    const got = await req(t.app, 'GET', `/v1/orders/${id}`);
    assert.equal(got.statusCode, 200);
    const etag = String(got.headers.etag);
    const notModified = await req(t.app, 'GET', `/v1/orders/${id}`, undefined, { 'if-none-match': etag });
    assert.equal(notModified.statusCode, 304);
    assert.equal(notModified.body, '');
    const patched = await req(
      t.app,
      'PATCH',
      `/v1/orders/${id}`,
      { shippingAddress: '1 Main St' },
      { 'if-match': etag },
    );
    assert.equal(patched.statusCode, 200);
    assert.notEqual(patched.headers.etag, etag);
    assert.equal(
      (await req(t.app, 'GET', `/v1/orders/${id}`, undefined, { 'if-none-match': etag })).statusCode,
      200,
    );
  });

  test("another tenant's order is a 404 for every method", async () => {
    const id = orderId();
    await req(t.app, 'PUT', `/v1/orders/${id}`, ORDER);
    const other = { authorization: auth('globex').authorization };
    problem(await req(t.app, 'GET', `/v1/orders/${id}`, undefined, other), 404, 'not_found');
    problem(
      await req(t.app, 'PATCH', `/v1/orders/${id}`, { customerId: 'x' }, { ...other, 'if-match': '"v1"' }),
      404,
      'not_found',
    );
    problem(
      await req(t.app, 'POST', `/v1/orders/${id}/ship`, undefined, {
        ...other,
        'if-match': '"v1"',
        'idempotency-key': newKey(),
      }),
      404,
      'not_found',
    );
    // globex's PUT creates globex's own order; acme's is untouched
    assert.equal(
      (await req(t.app, 'PUT', `/v1/orders/${id}`, { ...ORDER, customerId: 'globex' }, other)).statusCode,
      201,
    );
    assert.equal((await req(t.app, 'GET', `/v1/orders/${id}`)).json().customerId, 'cus_1');
  });
});

describe('orders: PATCH (merge patch)', () => {
  test('the lost update: two clients at the same version → one 200, one 412; the loser re-reads and succeeds', async () => {
    const id = orderId();
    await req(t.app, 'PUT', `/v1/orders/${id}`, ORDER);
    const etag = String((await req(t.app, 'GET', `/v1/orders/${id}`)).headers.etag);
    const alice = await req(
      t.app,
      'PATCH',
      `/v1/orders/${id}`,
      { metadata: { by: 'alice' } },
      { 'if-match': etag },
    );
    const bob = await req(
      t.app,
      'PATCH',
      `/v1/orders/${id}`,
      { metadata: { by: 'bob' } },
      { 'if-match': etag },
    );
    assert.equal(alice.statusCode, 200);
    problem(bob, 412, 'precondition_failed');
    const reread = await req(t.app, 'GET', `/v1/orders/${id}`);
    assert.deepEqual(reread.json().metadata, { by: 'alice' });
    const retry = await req(
      t.app,
      'PATCH',
      `/v1/orders/${id}`,
      { metadata: { by: 'bob' } },
      { 'if-match': String(reread.headers.etag) },
    );
    assert.equal(retry.statusCode, 200);
    assert.deepEqual(retry.json().metadata, { by: 'bob' });
  });

  test('application/merge-patch+json: null removes a field; If-Match required; invalid results are 400', async () => {
    const id = orderId();
    await req(t.app, 'PUT', `/v1/orders/${id}`, {
      ...ORDER,
      shippingAddress: 'x',
      metadata: { a: '1', b: '2' },
    });
    problem(await req(t.app, 'PATCH', `/v1/orders/${id}`, { customerId: 'y' }), 428, 'precondition_required');
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/v1/orders/${id}`,
      headers: { ...auth('acme'), 'content-type': 'application/merge-patch+json', 'if-match': '"v1"' },
      payload: JSON.stringify({ shippingAddress: null, metadata: { a: null, c: '3' } }),
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().shippingAddress, null);
    assert.deepEqual(res.json().metadata, { b: '2', c: '3' });
    problem(
      await req(t.app, 'PATCH', `/v1/orders/${id}`, { status: 'shipped' }, { 'if-match': '"v2"' }),
      400,
      'validation_failed',
    );
    problem(
      await req(t.app, 'PATCH', `/v1/orders/${id}`, { items: [] }, { 'if-match': '"v2"' }),
      400,
      'validation_failed',
    );
    assert.equal((await req(t.app, 'GET', `/v1/orders/${id}`)).json().version, 2);
  });

  test('concurrent PATCHes at one version on PostgreSQL: exactly one wins', {
    skip: needsPostgres,
  }, async () => {
    const id = orderId();
    await req(t.app, 'PUT', `/v1/orders/${id}`, ORDER);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        req(t.app, 'PATCH', `/v1/orders/${id}`, { metadata: { writer: String(i) } }, { 'if-match': '"v1"' }),
      ),
    );
    const codes = results.map((r) => r.statusCode).sort();
    assert.equal(codes.filter((c) => c === 200).length, 1, `codes ${codes}`);
    assert.equal(codes.filter((c) => c === 412).length, 9, `codes ${codes}`);
    assert.equal((await req(t.app, 'GET', `/v1/orders/${id}`)).json().version, 2);
  });
});

describe('orders: ship', () => {
  test('requires If-Match and an Idempotency-Key; a retry of a shipment that succeeded replays its 200, not 412', async () => {
    const id = orderId();
    await req(t.app, 'PUT', `/v1/orders/${id}`, ORDER);
    const key = newKey();
    problem(
      await req(t.app, 'POST', `/v1/orders/${id}/ship`, undefined, { 'idempotency-key': key }),
      428,
      'precondition_required',
    );
    problem(
      await req(t.app, 'POST', `/v1/orders/${id}/ship`, undefined, { 'if-match': '"v1"' }),
      400,
      'idempotency_key_missing',
    );
    // the 428 above was not stored: the same key still works once the precondition is added
    const shipped = await req(t.app, 'POST', `/v1/orders/${id}/ship`, undefined, {
      'idempotency-key': key,
      'if-match': '"v1"',
    });
    assert.equal(shipped.statusCode, 200);
    assert.equal(shipped.json().status, 'shipped');
    assert.equal(shipped.headers.etag, '"v2"');
    const retried = await req(t.app, 'POST', `/v1/orders/${id}/ship`, undefined, {
      'idempotency-key': key,
      'if-match': '"v1"',
    });
    assert.equal(retried.statusCode, 200, 'idempotency is checked before preconditions');
    assert.equal(retried.headers['idempotent-replayed'], 'true');
    assert.equal(retried.body, shipped.body);
    problem(
      await req(t.app, 'POST', `/v1/orders/${id}/ship`, undefined, {
        'idempotency-key': newKey(),
        'if-match': '"v2"',
      }),
      409,
      'order_already_shipped',
    );
  });
});
