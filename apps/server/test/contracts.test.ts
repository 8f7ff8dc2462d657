// The event contract served by the service is the one that validates what is actually delivered.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { contractValidator } from '@surety/events';
import { DeliveryWorker, parseAllowList } from '@surety/webhooks';
import { startReceiver } from '@surety/webhooks/testing';
import { parse } from 'yaml';
import { auth, createTestApp, newKey, PAYMENT, postPayment, type TestApp } from './helpers.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

test('/asyncapi.json and /asyncapi.yaml serve the same AsyncAPI 3.0 document', async () => {
  const json = await t.app.inject({ method: 'GET', url: '/asyncapi.json' });
  const yaml = await t.app.inject({ method: 'GET', url: '/asyncapi.yaml' });
  assert.equal(json.statusCode, 200);
  assert.equal(yaml.statusCode, 200);
  assert.match(String(yaml.headers['content-type']), /yaml/);
  const doc = json.json();
  assert.equal(doc.asyncapi, '3.0.0');
  assert.deepEqual(parse(yaml.body), doc);
});

test('every webhook body the service delivers validates against the served contract for its type', async () => {
  const doc = (await t.app.inject({ method: 'GET', url: '/asyncapi.json' })).json();
  const validate = contractValidator(doc);
  const rx = await startReceiver();
  const worker = new DeliveryWorker({
    webhooks: t.app.webhooks,
    listen: false,
    guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
  });
  try {
    const ep = await t.app.inject({
      method: 'POST',
      url: '/v1/webhook-endpoints',
      headers: { ...auth('acme'), 'content-type': 'application/json' },
      payload: JSON.stringify({ url: rx.url, eventTypes: ['*'] }),
    });
    assert.equal(ep.statusCode, 201);
    await postPayment(t.app, PAYMENT, { 'idempotency-key': newKey() });
    const call = (
      method: 'PUT' | 'PATCH' | 'POST',
      url: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ) =>
      t.app.inject({
        method,
        url,
        headers: { ...auth('acme'), 'content-type': 'application/json', ...headers },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      });
    await call('PUT', '/v1/orders/ord_contract', {
      customerId: 'cus_1',
      items: [{ sku: 'sku_c', quantity: 1 }],
    });
    await call('PATCH', '/v1/orders/ord_contract', { metadata: { a: 'b' } }, { 'if-match': '"v1"' });
    await t.app.inject({
      method: 'POST',
      url: '/v1/orders/ord_contract/ship',
      headers: { ...auth('acme'), 'if-match': '"v2"', 'idempotency-key': newKey() },
    });
    await call('PUT', '/v1/inventory/sku_c', { quantity: 3 });
    await call('POST', '/v1/inventory/sku_c/reservations', { quantity: 1 }, { 'idempotency-key': newKey() });
    await t.app.inject({
      method: 'POST',
      url: `/v1/webhook-endpoints/${ep.json().id}/test`,
      headers: auth('acme'),
    });
    await worker.drain();
    const types = new Set<string>();
    for (const r of rx.received) {
      const body = JSON.parse(r.body);
      const result = validate(body);
      assert.ok(result.ok, `${body.type}: ${JSON.stringify(result)}`);
      types.add(body.type);
    }
    assert.deepEqual([...types].sort(), [
      'inventory.reserved',
      'order.created',
      'order.shipped',
      'order.updated',
      'payment.created',
      'payment.succeeded',
      'webhook.test',
    ]);
  } finally {
    await worker.stop();
    await rx.close();
  }
});
