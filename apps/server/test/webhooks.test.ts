// The webhook management API and the events API, through the service: every route's happy path,
// validation, 401, another tenant's ids, If-Match; events published by business writes; rotation;
// pagination under concurrent inserts.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { verifySync } from '@surety/webhook-verify';
import { DeliveryWorker, parseAllowList } from '@surety/webhooks';
import { startReceiver } from '@surety/webhooks/testing';
import type { FastifyInstance } from 'fastify';
import { serviceRegistry } from '../src/service-events.js';
import { auth, createTestApp, newKey, PAYMENT, postPayment, problem, type TestApp } from './helpers.js';

let t: TestApp;
const samples = serviceRegistry();
const sample = (type: string) => structuredClone(samples.get(type)!.sample) as Record<string, unknown>;
let worker: DeliveryWorker;
const receivers: { close(): Promise<void> }[] = [];
before(async () => {
  t = await createTestApp();
  worker = new DeliveryWorker({
    webhooks: t.app.webhooks,
    listen: false,
    random: () => 0,
    guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
  });
});
// node:test runs a file's top-level afterEach once per top-level describe, not per test: each
// describe below registers this itself.
async function cleanup() {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  // Each test starts with no live endpoints and an empty queue.
  await t.db.sql.query(
    `update "${t.db.schema}".webhook_deliveries set status = 'failed' where status = 'pending'`,
  );
  await t.db.sql.query(
    `update "${t.db.schema}".webhook_endpoints set status = 'disabled' where status = 'enabled'`,
  );
}
after(() => t.close());

async function receiver(...args: Parameters<typeof startReceiver>) {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

type Tenant = 'acme' | 'globex';
function call(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT',
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
  tenant: Tenant = 'acme',
) {
  return app.inject({
    method,
    url,
    headers: {
      ...auth(tenant),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

async function createEndpoint(url: string, eventTypes = ['*'], tenant: Tenant = 'acme') {
  const res = await call(
    t.app,
    'POST',
    '/v1/webhook-endpoints',
    { url, eventTypes, description: 'test' },
    {},
    tenant,
  );
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { id: string; secret: string; version: number; url: string };
}

describe('webhook endpoints API', () => {
  afterEach(cleanup);

  test('create: 201 with the secret once, Location and ETag; the secret is never shown again', async () => {
    const rx = await receiver();
    const res = await call(t.app, 'POST', '/v1/webhook-endpoints', {
      url: rx.url,
      eventTypes: ['order.shipped'],
    });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    assert.match(body.id, /^we_/);
    assert.match(body.secret, /^whsec_/);
    assert.equal(res.headers.location, `/v1/webhook-endpoints/${body.id}`);
    assert.equal(res.headers.etag, '"v1"');
    const got = await call(t.app, 'GET', `/v1/webhook-endpoints/${body.id}`);
    assert.equal(got.statusCode, 200);
    assert.equal(got.json().secret, undefined);
    assert.equal(got.json().health.attempts24h, 0);
    const list = await call(t.app, 'GET', '/v1/webhook-endpoints?limit=100');
    assert.ok(list.json().data.every((e: { secret?: string }) => e.secret === undefined));
  });

  test('the circuit breaker is on the endpoint: closed, then open after failures, with its probe time', async () => {
    const rx = await receiver((_r, _n, res) => void res.writeHead(500).end());
    const created = (
      await call(t.app, 'POST', '/v1/webhook-endpoints', { url: rx.url, eventTypes: ['*'] })
    ).json();
    const get = async () => (await call(t.app, 'GET', `/v1/webhook-endpoints/${created.id}`)).json();
    assert.deepEqual(created.circuit, {
      state: 'closed',
      consecutiveFailures: 0,
      openedAt: null,
      nextProbeAt: null,
    });
    // Adaptive throttling's state is on every endpoint too (docs/webhooks.md).
    assert.deepEqual(created.throttle, {
      state: 'none',
      inFlightCap: null,
      rate: null,
      since: null,
      until: null,
      pausedUntil: null,
      decreases: 0,
    });
    const breaking = new DeliveryWorker({
      webhooks: t.app.webhooks,
      listen: false,
      random: () => 0,
      concurrency: 1,
      batchSize: 1,
      circuitThreshold: 2,
      circuitProbeMs: 30_000,
      guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
    });
    for (let i = 0; i < 4; i++) {
      await t.db.sql.transaction((tx) =>
        t.app.webhooks.publish(tx, { tenant: 'acme', type: 'order.created', data: sample('order.created') }),
      );
    }
    await breaking.drain();
    assert.equal(rx.received.length, 2, 'two attempts, then the breaker held the rest');
    const at = new Date(t.clock.now).toISOString();
    assert.deepEqual((await get()).circuit, {
      state: 'open',
      consecutiveFailures: 2,
      openedAt: at,
      nextProbeAt: new Date(t.clock.now + 30_000).toISOString(),
    });
    const listed = (await call(t.app, 'GET', '/v1/webhook-endpoints?limit=100')).json();
    assert.equal(listed.data.find((e: { id: string }) => e.id === created.id).circuit.state, 'open');
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const schema =
      doc.paths['/v1/webhook-endpoints/{id}'].get.responses['200'].content['application/json'].schema;
    assert.deepEqual(Object.keys(schema.properties.circuit.properties).sort(), [
      'consecutiveFailures',
      'nextProbeAt',
      'openedAt',
      'state',
    ]);
  });

  test('create: bad input is a 400 with a stable code; unsafe URLs are refused', async () => {
    const cases: [unknown, string][] = [
      [{ eventTypes: ['*'] }, 'validation_failed'],
      [{ url: 'http://127.0.0.1:1/x', eventTypes: [] }, 'validation_failed'],
      [{ url: 'http://127.0.0.1:1/x', eventTypes: ['Not A Type'] }, 'validation_failed'],
      [{ url: 'http://127.0.0.1:1/x', eventTypes: ['*'], extra: 1 }, 'validation_failed'],
      [{ url: 'ftp://example.com/x', eventTypes: ['*'] }, 'invalid_webhook_url'],
      [{ url: 'http://169.254.169.254/latest/meta-data', eventTypes: ['*'] }, 'invalid_webhook_url'],
      [{ url: 'http://10.0.0.1/hook', eventTypes: ['*'] }, 'invalid_webhook_url'],
      [{ url: 'http://user:pw@127.0.0.1:1/x', eventTypes: ['*'] }, 'invalid_webhook_url'],
    ];
    const before = await t.count('webhook_endpoints');
    for (const [body, code] of cases)
      problem(await call(t.app, 'POST', '/v1/webhook-endpoints', body), 400, code);
    assert.equal(await t.count('webhook_endpoints'), before);
  });

  test('every route answers 401 without a key and 404 for another tenant’s endpoint', async () => {
    const rx = await receiver();
    const { id } = await createEndpoint(rx.url);
    const routes: [Parameters<typeof call>[1], string, unknown?][] = [
      ['GET', `/v1/webhook-endpoints/${id}`],
      ['PATCH', `/v1/webhook-endpoints/${id}`, { description: 'x' }],
      ['DELETE', `/v1/webhook-endpoints/${id}`],
      ['POST', `/v1/webhook-endpoints/${id}/rotate-secret`, {}],
      ['POST', `/v1/webhook-endpoints/${id}/enable`],
      ['POST', `/v1/webhook-endpoints/${id}/disable`],
      ['POST', `/v1/webhook-endpoints/${id}/test`],
      ['POST', `/v1/webhook-endpoints/${id}/recover`, { since: '2020-01-01T00:00:00Z' }],
      ['GET', `/v1/webhook-endpoints/${id}/deliveries`],
    ];
    for (const [method, url, body] of routes) {
      const anonymous = await t.app.inject({
        method,
        url,
        ...(body === undefined ? {} : { payload: body as object }),
      });
      problem(anonymous, 401, 'unauthorized');
      const other = await call(t.app, method, url, body, { 'if-match': '"v1"' }, 'globex');
      problem(other, 404, 'not_found');
    }
    assert.equal((await call(t.app, 'GET', `/v1/webhook-endpoints/${id}`)).statusCode, 200, 'untouched');
    problem(await call(t.app, 'GET', '/v1/webhook-endpoints/we_doesnotexist'), 404, 'not_found');
  });

  test('PATCH needs If-Match: 428 without, 412 when stale, 200 and a new ETag when current', async () => {
    const rx = await receiver();
    const { id } = await createEndpoint(rx.url);
    problem(
      await call(t.app, 'PATCH', `/v1/webhook-endpoints/${id}`, { description: 'new' }),
      428,
      'precondition_required',
    );
    problem(
      await call(
        t.app,
        'PATCH',
        `/v1/webhook-endpoints/${id}`,
        { description: 'new' },
        { 'if-match': '"v7"' },
      ),
      412,
      'precondition_failed',
    );
    const ok = await call(
      t.app,
      'PATCH',
      `/v1/webhook-endpoints/${id}`,
      { description: 'new', rateLimit: 5 },
      { 'if-match': '"v1"' },
    );
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.headers.etag, '"v2"');
    assert.equal(ok.json().description, 'new');
    assert.equal(ok.json().rateLimit, 5);
    problem(
      await call(
        t.app,
        'PATCH',
        `/v1/webhook-endpoints/${id}`,
        { url: 'http://192.168.1.1/' },
        { 'if-match': '"v2"' },
      ),
      400,
      'invalid_webhook_url',
    );
    problem(
      await call(t.app, 'PATCH', `/v1/webhook-endpoints/${id}`, {}, { 'if-match': '"v2"' }),
      400,
      'validation_failed',
    );
  });

  test('test event, deliveries and attempts; disable by 410, enable, recover; delete', async () => {
    let gone = true;
    const rx = await receiver((_r, _n, res) => void res.writeHead(gone ? 410 : 200).end());
    const { id } = await createEndpoint(rx.url);
    const sent = await call(t.app, 'POST', `/v1/webhook-endpoints/${id}/test`);
    assert.equal(sent.statusCode, 202);
    await worker.drain();
    assert.equal(JSON.parse(rx.received[0]!.body).type, 'webhook.test');
    const endpoint = (await call(t.app, 'GET', `/v1/webhook-endpoints/${id}`)).json();
    assert.equal(endpoint.status, 'disabled');
    assert.match(endpoint.disabledReason, /410/);
    problem(await call(t.app, 'POST', `/v1/webhook-endpoints/${id}/test`), 409, 'endpoint_disabled');
    const deliveries = (
      await call(t.app, 'GET', `/v1/webhook-endpoints/${id}/deliveries?status=failed`)
    ).json();
    assert.equal(deliveries.data.length, 1);
    const attempts = (await call(t.app, 'GET', `/v1/deliveries/${deliveries.data[0].id}/attempts`)).json();
    assert.deepEqual(
      attempts.data.map((a: { status: number; errorCode: string }) => [a.status, a.errorCode]),
      [[410, 'http_410']],
    );
    problem(
      await call(t.app, 'GET', `/v1/deliveries/${deliveries.data[0].id}/attempts`, undefined, {}, 'globex'),
      404,
      'not_found',
    );
    gone = false;
    assert.equal((await call(t.app, 'POST', `/v1/webhook-endpoints/${id}/enable`)).json().status, 'enabled');
    const recovered = await call(t.app, 'POST', `/v1/webhook-endpoints/${id}/recover`, {
      since: new Date(0).toISOString(),
    });
    assert.equal(recovered.json().requeued, 1);
    problem(
      await call(t.app, 'POST', `/v1/webhook-endpoints/${id}/recover`, { since: 'yesterday' }),
      400,
      'validation_failed',
    );
    await worker.drain();
    assert.equal(rx.received.length, 2);
    const delivered = (
      await call(t.app, 'GET', `/v1/webhook-endpoints/${id}/deliveries?status=delivered`)
    ).json();
    assert.equal(delivered.data.length, 1);
    const health = (await call(t.app, 'GET', `/v1/webhook-endpoints/${id}`)).json().health;
    assert.equal(health.attempts24h, 2);
    assert.equal(health.successRate24h, 0.5);
    assert.equal((await call(t.app, 'DELETE', `/v1/webhook-endpoints/${id}`)).statusCode, 204);
    problem(await call(t.app, 'GET', `/v1/webhook-endpoints/${id}`), 404, 'not_found');
  });

  test('an operator disables an endpoint: nothing is sent to it, its queue fails, the others hear of it; enable and recover bring it back', async () => {
    const target = await receiver();
    const other = await receiver();
    const { id } = await createEndpoint(target.url, ['order.created']);
    await createEndpoint(other.url, ['endpoint.disabled']);
    const order = { customerId: 'cus_1', items: [{ sku: 'sku_mug', quantity: 1 }] };
    assert.equal((await call(t.app, 'PUT', '/v1/orders/ord_disable_1', order)).statusCode, 201);
    const before = (await call(t.app, 'GET', `/v1/webhook-endpoints/${id}`)).headers.etag;

    problem(
      await call(t.app, 'POST', `/v1/webhook-endpoints/${id}/disable`, { reason: 'x'.repeat(201) }),
      400,
      'validation_failed',
    );
    problem(
      await call(t.app, 'POST', `/v1/webhook-endpoints/${id}/disable`, { why: 'typo' }),
      400,
      'validation_failed',
    );
    const disabled = await call(t.app, 'POST', `/v1/webhook-endpoints/${id}/disable`, {
      reason: 'receiver migration',
    });
    assert.equal(disabled.statusCode, 200, disabled.body);
    assert.equal(disabled.json().status, 'disabled');
    assert.equal(disabled.json().disabledReason, 'by an operator: receiver migration');
    assert.notEqual(disabled.headers.etag, before, 'a new version: If-Match on the old one fails');
    // Without a body, and again: nothing changes the second time (no second endpoint.disabled).
    const again = await call(t.app, 'POST', `/v1/webhook-endpoints/${id}/disable`);
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().disabledReason, 'by an operator: receiver migration');
    assert.equal(again.headers.etag, disabled.headers.etag);
    problem(
      await call(t.app, 'POST', `/v1/webhook-endpoints/${id}/disable`, undefined, {}, 'globex'),
      404,
      'not_found',
    );

    // Failed by the disable itself, before any worker ran (a worker would also fail them, on claim).
    const failed = (await call(t.app, 'GET', `/v1/webhook-endpoints/${id}/deliveries?status=failed`)).json();
    assert.deepEqual(
      failed.data.map((d: { lastError: string; attempts: number }) => [d.lastError, d.attempts]),
      [['endpoint_disabled', 0]],
    );
    await worker.drain();
    assert.equal(target.received.length, 0, 'nothing was sent to the disabled endpoint');
    const heard = other.received.map((r) => JSON.parse(r.body) as { type: string; data: { reason: string } });
    assert.deepEqual(
      heard.map((e) => [e.type, e.data.reason]),
      [['endpoint.disabled', 'by an operator: receiver migration']],
    );

    assert.equal((await call(t.app, 'POST', `/v1/webhook-endpoints/${id}/enable`)).json().status, 'enabled');
    const recovered = await call(t.app, 'POST', `/v1/webhook-endpoints/${id}/recover`, {
      since: new Date(0).toISOString(),
    });
    assert.equal(recovered.json().requeued, 1);
    await worker.drain();
    assert.deepEqual(
      target.received.map((r) => JSON.parse(r.body).type),
      ['order.created'],
    );
  });

  test('DELETE honours If-Match, and deletes only the version the precondition passed on', async () => {
    const rx = await receiver();
    const { id } = await createEndpoint(rx.url);
    problem(
      await call(t.app, 'DELETE', `/v1/webhook-endpoints/${id}`, undefined, { 'if-match': '"v7"' }),
      412,
      'precondition_failed',
    );
    // A change committed after the route's check and before its delete: the library deletes only
    // the version it is given, so the route answers 412 instead of deleting what the client never saw.
    const moved = await call(
      t.app,
      'PATCH',
      `/v1/webhook-endpoints/${id}`,
      { description: 'moved on' },
      { 'if-match': '"v1"' },
    );
    assert.equal(moved.statusCode, 200, moved.body);
    const stale = await t.db.sql.transaction((tx) =>
      t.app.webhooks.deleteEndpoint(tx, { tenant: 'acme', id, ifVersion: 1 }),
    );
    assert.equal(stale, false);
    assert.equal((await call(t.app, 'GET', `/v1/webhook-endpoints/${id}`)).statusCode, 200);
    const gone = await call(t.app, 'DELETE', `/v1/webhook-endpoints/${id}`, undefined, {
      'if-match': '"v2"',
    });
    assert.equal(gone.statusCode, 204, gone.body);
    problem(await call(t.app, 'GET', `/v1/webhook-endpoints/${id}`), 404, 'not_found');
  });

  test('rotation: during the overlap a receiver holding only the old secret verifies; after it, only the new', async () => {
    const rx = await receiver();
    const { id, secret: old } = await createEndpoint(rx.url);
    const rotated = await call(t.app, 'POST', `/v1/webhook-endpoints/${id}/rotate-secret`, {
      overlapSeconds: 3600,
    });
    assert.equal(rotated.statusCode, 200);
    const fresh = rotated.json().secret as string;
    assert.notEqual(fresh, old);
    await call(t.app, 'POST', `/v1/webhook-endpoints/${id}/test`);
    await worker.drain();
    const during = rx.received[0]!;
    const at = () => t.clock.now;
    verifySync({ body: during.body, headers: during.headers, secrets: [old], now: at });
    verifySync({ body: during.body, headers: during.headers, secrets: [fresh], now: at });
    t.clock.now += 3_600_001;
    await call(t.app, 'POST', `/v1/webhook-endpoints/${id}/test`);
    await worker.drain();
    const later = rx.received[1]!;
    verifySync({ body: later.body, headers: later.headers, secrets: [fresh], now: at });
    assert.throws(
      () => verifySync({ body: later.body, headers: later.headers, secrets: [old], now: at }),
      /signature/,
    );
  });
});

describe('events published by the business writes', () => {
  afterEach(cleanup);

  test('payment.created, order.created/updated/shipped and inventory.reserved are delivered with the resource data', async () => {
    const rx = await receiver();
    const { secret } = await createEndpoint(rx.url, [
      'payment.created',
      'order.created',
      'order.updated',
      'order.shipped',
      'inventory.reserved',
    ]);
    const payment = (await postPayment(t.app, PAYMENT, { 'idempotency-key': newKey() })).json();
    const orderId = `ord_${newKey().slice(0, 8)}`;
    const order = { customerId: 'cus_1', items: [{ sku: 'sku_evt', quantity: 1 }] };
    await call(t.app, 'PUT', `/v1/orders/${orderId}`, order);
    await call(
      t.app,
      'PATCH',
      `/v1/orders/${orderId}`,
      { shippingAddress: '1 Main St' },
      { 'if-match': '"v1"' },
    );
    await call(t.app, 'POST', `/v1/orders/${orderId}/ship`, undefined, {
      'if-match': '"v2"',
      'idempotency-key': newKey(),
    });
    await call(t.app, 'PUT', '/v1/inventory/sku_evt', { quantity: 5 });
    await call(
      t.app,
      'POST',
      '/v1/inventory/sku_evt/reservations',
      { quantity: 2 },
      { 'idempotency-key': newKey() },
    );
    // a rejected write publishes nothing
    problem(
      await call(t.app, 'PATCH', `/v1/orders/${orderId}`, { shippingAddress: 'x' }, { 'if-match': '"v1"' }),
      412,
      'precondition_failed',
    );
    // a replay publishes nothing either
    const key = newKey();
    await postPayment(t.app, { ...PAYMENT, amount: '5' }, { 'idempotency-key': key });
    await postPayment(t.app, { ...PAYMENT, amount: '5' }, { 'idempotency-key': key });
    await worker.drain();
    const bodies = rx.received.map((r) => {
      verifySync({ body: r.body, headers: r.headers, secrets: [secret], now: () => t.clock.now });
      return JSON.parse(r.body);
    });
    const types = bodies.map((b) => b.type).sort();
    assert.deepEqual(types, [
      'inventory.reserved',
      'order.created',
      'order.shipped',
      'order.updated',
      'payment.created',
      'payment.created',
    ]);
    // payment.created carries the payment as created, processing; the answer is the charged payment
    assert.deepEqual(bodies.find((b) => b.data.id === payment.id)?.data, {
      ...payment,
      status: 'processing',
    });
    const orderEvents = bodies
      .filter((b) => b.type.startsWith('order.'))
      .sort((a, b) => a.sequence - b.sequence);
    assert.deepEqual(
      orderEvents.map((b) => b.type),
      ['order.created', 'order.updated', 'order.shipped'],
    );
    assert.deepEqual(
      orderEvents.map((b) => b.data.version),
      [1, 2, 3],
    );
    const reserved = bodies.find((b) => b.type === 'inventory.reserved');
    assert.deepEqual(
      { sku: reserved.data.sku, quantity: reserved.data.quantity, remaining: reserved.data.remaining },
      { sku: 'sku_evt', quantity: 2, remaining: 3 },
    );
  });
});

describe('events API', () => {
  afterEach(cleanup);

  test('POST /v1/events needs an Idempotency-Key and publishes once; GET one, list, deliveries, replay', async () => {
    const rx = await receiver();
    const { id: endpointId } = await createEndpoint(rx.url, ['order.created']);
    const data = { ...sample('order.created'), id: 'ord_custom' };
    problem(
      await call(t.app, 'POST', '/v1/events', { type: 'order.created', data }),
      400,
      'idempotency_key_missing',
    );
    const key = newKey();
    const created = await call(
      t.app,
      'POST',
      '/v1/events',
      { type: 'order.created', data, resource: 'order:ord_custom' },
      { 'idempotency-key': key },
    );
    assert.equal(created.statusCode, 201);
    const event = created.json();
    const again = await call(
      t.app,
      'POST',
      '/v1/events',
      { type: 'order.created', data, resource: 'order:ord_custom' },
      { 'idempotency-key': key },
    );
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.json().id, event.id);
    problem(
      await call(t.app, 'POST', '/v1/events', { type: 'Bad', data }, { 'idempotency-key': newKey() }),
      400,
      'validation_failed',
    );
    problem(
      await call(
        t.app,
        'POST',
        '/v1/events',
        { type: 'order.created', data: 5 },
        { 'idempotency-key': newKey() },
      ),
      400,
      'validation_failed',
    );
    // the payload is checked against its type's schema: 422 listing the failing paths, nothing published
    const before = await t.count('webhook_events');
    const invalid = await call(
      t.app,
      'POST',
      '/v1/events',
      { type: 'order.created', data: { ...data, version: 'one', customerId: undefined } },
      { 'idempotency-key': newKey() },
    );
    const problemBody = problem(invalid, 422, 'invalid_event') as unknown as { errors: { path: string }[] };
    assert.deepEqual(problemBody.errors.map((e) => e.path).sort(), ['/customerId', '/version']);
    problem(
      await call(
        t.app,
        'POST',
        '/v1/events',
        { type: 'custom.unknown', data: {} },
        { 'idempotency-key': newKey() },
      ),
      422,
      'invalid_event',
    );
    assert.equal(await t.count('webhook_events'), before);
    assert.deepEqual((await call(t.app, 'GET', `/v1/events/${event.id}`)).json().data, data);
    problem(await call(t.app, 'GET', `/v1/events/${event.id}`, undefined, {}, 'globex'), 404, 'not_found');
    const filtered = (
      await call(t.app, 'GET', '/v1/events?type=order.created&resource=order:ord_custom')
    ).json();
    assert.deepEqual(
      filtered.data.map((e: { id: string }) => e.id),
      [event.id],
    );
    await worker.drain();
    const deliveries = (await call(t.app, 'GET', `/v1/events/${event.id}/deliveries`)).json();
    assert.equal(deliveries.data.length, 1, JSON.stringify(deliveries.data));
    assert.equal(deliveries.data[0].endpointId, endpointId);
    assert.equal(deliveries.data[0].status, 'delivered');
    const replay = await call(t.app, 'POST', `/v1/events/${event.id}/replay`, { endpointId });
    assert.equal(replay.statusCode, 202);
    assert.equal(replay.json().queued, 1);
    problem(await call(t.app, 'POST', `/v1/events/${event.id}/replay`, {}, {}, 'globex'), 404, 'not_found');
    await worker.drain();
    assert.equal(rx.received.length, 2);
    assert.equal(rx.received[0]!.body, rx.received[1]!.body, 'a replay sends the same bytes');
  });

  test('pagination: 250 events paged by 100 while new ones are inserted: no duplicates, no gaps', async () => {
    const tenantEvents = async (n: number, tag: string) => {
      for (let i = 0; i < n; i += 50) {
        await t.db.sql.transaction(async (tx) => {
          for (let j = i; j < Math.min(n, i + 50); j++) {
            t.clock.now += 1;
            await t.app.webhooks.publish(tx, {
              tenant: 'globex',
              type: 'order.updated',
              data: { ...sample('order.updated'), metadata: { tag, j: String(j) } },
              resource: 'page',
            });
          }
        });
      }
    };
    await tenantEvents(250, 'original');
    const original = new Set(
      (
        await t.db.sql.query<{ id: string }>(
          `select id from "${t.db.schema}".webhook_events where tenant = 'globex' and resource = 'page'`,
        )
      ).rows.map((r) => r.id),
    );
    assert.equal(original.size, 250);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pageNo = 0; pageNo < 10; pageNo++) {
      const url: string = `/v1/events?resource=page&limit=100${cursor ? `&cursor=${cursor}` : ''}`;
      const page = (await call(t.app, 'GET', url, undefined, {}, 'globex')).json();
      seen.push(...page.data.map((e: { id: string }) => e.id));
      await tenantEvents(30, `inserted-${pageNo}`); // concurrent inserts between pages
      cursor = page.nextCursor;
      if (!cursor) break;
    }
    assert.equal(new Set(seen).size, seen.length, 'no duplicates');
    for (const id of original) assert.ok(seen.includes(id), `gap: ${id} never listed`);
    problem(
      await call(t.app, 'GET', '/v1/events?cursor=garbage', undefined, {}, 'globex'),
      400,
      'invalid_cursor',
    );
  });
});
