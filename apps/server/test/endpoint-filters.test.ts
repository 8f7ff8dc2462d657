// Issue 37: an endpoint's payload `filter` through the service. Created and updated with the
// endpoint (by the tenant and by a consumer's portal session), returned with it, applied when an
// event is published (only matching endpoints get a delivery); a hostile filter (deep, wide, huge,
// an unknown operator) is a 422 `invalid_webhook_filter` that changes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { callAs, createTestApp, problem, type TestApp } from './helpers.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const call = (
  method: 'POST' | 'PATCH' | 'GET',
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
) => callAs(t.app, 'acme', method, url, body, headers);

let keys = 0;
const publish = async (data: Record<string, unknown>) => {
  const r = await call(
    'POST',
    '/v1/events',
    { type: 'payment.created', data },
    { 'idempotency-key': `k${++keys}` },
  );
  assert.equal(r.statusCode, 201, r.body);
  const deliveries = await call('GET', `/v1/events/${r.json().id}/deliveries`);
  return (deliveries.json().data as { endpointId: string }[]).map((d) => d.endpointId).sort();
};

const payment = (amount: string, currency: string) => ({
  id: `pay_${'a'.repeat(20)}`,
  object: 'payment',
  amount,
  currency,
  customerId: 'cus_1',
  status: 'succeeded',
  createdAt: '2026-01-01T00:00:00.000Z',
});

test('a filter is returned with the endpoint and decides which endpoints get an event', async () => {
  const eur = await call('POST', '/v1/webhook-endpoints', {
    url: 'http://127.0.0.1:9/eur',
    eventTypes: ['payment.created'],
    filter: { 'data.currency': { $in: ['EUR', 'GBP'] } },
  });
  assert.equal(eur.statusCode, 201, eur.body);
  assert.deepEqual(eur.json().filter, { 'data.currency': { $in: ['EUR', 'GBP'] } });
  const all = await call('POST', '/v1/webhook-endpoints', {
    url: 'http://127.0.0.1:9/all',
    eventTypes: ['*'],
  });
  assert.equal(all.json().filter, null);
  const got = await call('GET', `/v1/webhook-endpoints/${eur.json().id}`);
  assert.deepEqual(got.json().filter, eur.json().filter);

  assert.deepEqual(await publish(payment('100', 'EUR')), [eur.json().id, all.json().id].sort());
  assert.deepEqual(await publish(payment('100', 'USD')), [all.json().id]);

  const patched = await call(
    'PATCH',
    `/v1/webhook-endpoints/${eur.json().id}`,
    { filter: { 'data.currency': 'USD' } },
    { 'if-match': String(eur.headers.etag) },
  );
  assert.equal(patched.statusCode, 200, patched.body);
  assert.deepEqual(await publish(payment('100', 'USD')), [eur.json().id, all.json().id].sort());
  const cleared = await call(
    'PATCH',
    `/v1/webhook-endpoints/${eur.json().id}`,
    { filter: null },
    { 'if-match': String(patched.headers.etag) },
  );
  assert.equal(cleared.json().filter, null);
  assert.deepEqual(await publish(payment('1', 'JPY')), [eur.json().id, all.json().id].sort());
});

describe('a hostile filter: 422 invalid_webhook_filter, nothing changed', () => {
  let deep: unknown = { 'data.a': 1 };
  for (let i = 0; i < 200; i++) deep = { $not: deep };
  const cases: [string, unknown][] = [
    ['deep', deep],
    ['wide', Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`data.k${i}`, i]))],
    ['too many values', { 'data.a': { $in: Array.from({ length: 51 }, (_, i) => i) } }],
    ['huge literal', { 'data.a': 'x'.repeat(10_000) }],
    ['regex', { 'data.a': { $regex: '^(a+)+$' } }],
    ['where', { $where: 'sleep(1)' }],
    ['outside the envelope', { 'secrets.x': 1 }],
    ['ordering a string', { 'data.a': { $gt: 'a' } }],
    ['empty', {}],
  ];
  for (const [name, filter] of cases) {
    test(name, async () => {
      const before = (await call('GET', '/v1/webhook-endpoints?limit=100')).json().data.length;
      const body = problem(
        await call('POST', '/v1/webhook-endpoints', {
          url: 'http://127.0.0.1:9/x',
          eventTypes: ['*'],
          filter,
        }),
        422,
        'invalid_webhook_filter',
      ) as unknown as { errors: { in: string; path: string }[] };
      assert.ok(
        body.errors.length > 0 && body.errors.every((e) => e.in === 'body' && e.path.startsWith('/filter')),
      );
      assert.equal((await call('GET', '/v1/webhook-endpoints?limit=100')).json().data.length, before);

      const ep = await call('POST', '/v1/webhook-endpoints', {
        url: 'http://127.0.0.1:9/y',
        eventTypes: ['*'],
      });
      problem(
        await call(
          'PATCH',
          `/v1/webhook-endpoints/${ep.json().id}`,
          { filter, description: 'not saved' },
          { 'if-match': String(ep.headers.etag) },
        ),
        422,
        'invalid_webhook_filter',
      );
      const now = (await call('GET', `/v1/webhook-endpoints/${ep.json().id}`)).json();
      assert.equal(now.version, ep.json().version);
      assert.equal(now.description, '');
    });
  }
});

test('a consumer sets a filter on its endpoint through its portal session', async () => {
  const app = await call('POST', '/v1/applications', { name: 'Consumer' });
  const session = await call('POST', `/v1/applications/${app.json().id}/portal-sessions`, {});
  const token = session.json().token as string;
  const r = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    payload: JSON.stringify({
      url: 'http://127.0.0.1:9/consumer',
      eventTypes: ['*'],
      filter: { 'data.amount': { $exists: true } },
    }),
  });
  assert.equal(r.statusCode, 201, r.body);
  assert.deepEqual(r.json().filter, { 'data.amount': { $exists: true } });
  assert.equal(r.json().applicationId, app.json().id);
});

describe("checked against the subscribed types' schemas: 422 invalid_webhook_filter", () => {
  const create = (eventTypes: string[], filter: unknown) =>
    call('POST', '/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/s', eventTypes, filter });

  test("a path the service's type does not have, a value it never holds, a type not subscribed", async () => {
    problem(await create(['payment.created'], { 'data.amont': '1' }), 422, 'invalid_webhook_filter');
    // amount is a decimal string: a numeric comparison could never match.
    problem(
      await create(['payment.created'], { 'data.amount': { $gt: 100 } }),
      422,
      'invalid_webhook_filter',
    );
    problem(await create(['payment.created'], { 'data.status': 'refunded' }), 422, 'invalid_webhook_filter');
    problem(await create(['payment.created'], { type: 'order.created' }), 422, 'invalid_webhook_filter');
    assert.equal((await create(['payment.created'], { 'data.status': 'succeeded' })).statusCode, 201);
  });

  test("a tenant's own type is checked against its schema", async () => {
    const et = await call('POST', '/v1/event-types', {
      name: 'shop.sold',
      description: 'Sold.',
      schema: { type: 'object', properties: { qty: { type: 'integer' } } },
      examples: [{ qty: 1 }],
    });
    assert.equal(et.statusCode, 201, et.body);
    problem(await create(['shop.sold'], { 'data.quantity': 1 }), 422, 'invalid_webhook_filter');
    assert.equal((await create(['shop.sold'], { 'data.qty': { $gte: 2 } })).statusCode, 201);
  });

  test('changing the event types under a filter is checked too, and refused changes nothing', async () => {
    const ep = await create(['payment.created'], { 'data.currency': 'EUR' });
    assert.equal(ep.statusCode, 201, ep.body);
    const r = await call(
      'PATCH',
      `/v1/webhook-endpoints/${ep.json().id}`,
      { eventTypes: ['order.created'] },
      { 'if-match': String(ep.headers.etag) },
    );
    problem(r, 422, 'invalid_webhook_filter');
    assert.equal(
      (await call('GET', `/v1/webhook-endpoints/${ep.json().id}`)).json().version,
      ep.json().version,
    );
    const both = await call(
      'PATCH',
      `/v1/webhook-endpoints/${ep.json().id}`,
      { eventTypes: ['order.created'], filter: null },
      { 'if-match': String(ep.headers.etag) },
    );
    assert.equal(both.statusCode, 200, both.body);
  });
});
