// Issue 20: POST /v1/webhook-endpoints/:id/test names one endpoint, so it reaches that endpoint
// whatever event types it is subscribed to (it answered 202 {"deliveries":0} and sent nothing to an
// endpoint not subscribed to webhook.test). A disabled endpoint is a 409 that says why.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DeliveryWorker, parseAllowList } from '@surety/webhooks';
import { startReceiver } from '@surety/webhooks/testing';
import { auth, createTestApp, problem, type TestApp } from './helpers.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const call = (method: 'POST', url: string, body?: unknown) =>
  t.app.inject({
    method,
    url,
    headers: body === undefined ? auth('acme') : { ...auth('acme'), 'content-type': 'application/json' },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

test('a test event reaches the endpoint it names, subscribed to webhook.test or not; never another', async () => {
  const rx = await startReceiver();
  const worker = new DeliveryWorker({
    webhooks: t.app.webhooks,
    listen: false,
    guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
  });
  try {
    const named = (
      await call('POST', '/v1/webhook-endpoints', { url: `${rx.url}/named`, eventTypes: ['payment.created'] })
    ).json();
    await call('POST', '/v1/webhook-endpoints', { url: `${rx.url}/other`, eventTypes: ['*'] });
    const res = await call('POST', `/v1/webhook-endpoints/${named.id}/test`);
    assert.equal(res.statusCode, 202, res.body);
    assert.equal(res.json().deliveries, 1);
    await worker.drain();
    assert.deepEqual(
      rx.received.map((r) => r.path.split('/').pop()),
      ['named'],
      'the named endpoint only',
    );
    assert.equal(JSON.parse(rx.received[0]!.body).type, 'webhook.test');

    await call('POST', `/v1/webhook-endpoints/${named.id}/disable`);
    problem(await call('POST', `/v1/webhook-endpoints/${named.id}/test`), 409, 'endpoint_disabled');
  } finally {
    await worker.stop();
    await rx.close();
  }
});
