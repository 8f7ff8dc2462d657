// Issue 19: an endpoint's custom `headers` through the service. Created and updated with the
// endpoint, returned in its representation, sent with every delivery to a receiver on 127.0.0.1;
// every reserved name, a name that is not a token and a value with CR or LF is a 422
// `invalid_webhook_headers` that changes nothing (no endpoint, no new version).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DeliveryWorker, parseAllowList, RESERVED_HEADERS } from '@surety/webhooks';
import { startReceiver } from '@surety/webhooks/testing';
import { auth, createTestApp, problem, type TestApp } from './helpers.js';

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
) =>
  t.app.inject({
    method,
    url,
    headers: {
      ...auth('acme'),
      ...headers,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

test('headers are returned with the endpoint and reach the receiver with every delivery', async () => {
  const rx = await startReceiver();
  const worker = new DeliveryWorker({
    webhooks: t.app.webhooks,
    listen: false,
    guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
  });
  try {
    const created = await call('POST', '/v1/webhook-endpoints', {
      url: rx.url,
      eventTypes: ['*'],
      headers: { Authorization: 'Bearer rcv_1', 'X-Customer': 'cus_7' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const ep = created.json();
    assert.deepEqual(ep.headers, { Authorization: 'Bearer rcv_1', 'X-Customer': 'cus_7' });
    assert.deepEqual((await call('GET', `/v1/webhook-endpoints/${ep.id}`)).json().headers, ep.headers);
    assert.equal((await call('POST', `/v1/webhook-endpoints/${ep.id}/test`)).statusCode, 202);
    await worker.drain();
    assert.equal(rx.received.length, 1);
    assert.equal(rx.received[0]!.headers.authorization, 'Bearer rcv_1');
    assert.equal(rx.received[0]!.headers['x-customer'], 'cus_7');

    const patched = await call(
      'PATCH',
      `/v1/webhook-endpoints/${ep.id}`,
      { headers: { 'X-Customer': 'cus_8' } },
      { 'if-match': String(created.headers.etag) },
    );
    assert.equal(patched.statusCode, 200, patched.body);
    assert.deepEqual(patched.json().headers, { 'X-Customer': 'cus_8' });
    assert.equal((await call('POST', `/v1/webhook-endpoints/${ep.id}/test`)).statusCode, 202);
    await worker.drain();
    assert.equal(rx.received[1]!.headers['x-customer'], 'cus_8');
    assert.equal(rx.received[1]!.headers.authorization, undefined);
  } finally {
    await worker.stop();
    await rx.close();
  }
});

describe('refused headers: 422 invalid_webhook_headers, nothing changed', () => {
  const cases: [string, Record<string, unknown>][] = [
    ...[...RESERVED_HEADERS, 'Webhook-Signature', 'HOST', 'Proxy-Authorization', 'surety-id'].map(
      (name): [string, Record<string, unknown>] => [name, { [name]: 'x' }],
    ),
    ['CR LF in a value', { 'X-A': 'a\r\nX-Injected: 1' }],
    ['LF in a value', { 'X-A': 'a\nb' }],
    ['CR in a value', { 'X-A': 'a\rb' }],
    ['a control character', { 'X-A': 'a\u0007b' }],
    ['a name with a space', { 'X A': 'v' }],
    ['a name with CR LF', { 'X-A\r\nX-B': 'v' }],
    ['21 headers', Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-${i}`, 'v']))],
  ];

  test('on create: no endpoint is made', async () => {
    const before = await t.count('webhook_endpoints');
    for (const [what, headers] of cases) {
      const res = await call('POST', '/v1/webhook-endpoints', {
        url: 'http://127.0.0.1:9/h',
        eventTypes: ['*'],
        headers,
      });
      problem(res, 422, 'invalid_webhook_headers');
      const { errors } = res.json() as { errors: { in: string; path: string }[] };
      assert.ok(errors.length > 0, what);
      assert.deepEqual([errors[0]!.in, errors[0]!.path.startsWith('/headers')], ['body', true], what);
    }
    assert.equal(await t.count('webhook_endpoints'), before);
  });

  test('on update: the endpoint keeps its headers and its ETag', async () => {
    const created = await call('POST', '/v1/webhook-endpoints', {
      url: 'http://127.0.0.1:9/kept',
      eventTypes: ['*'],
      headers: { 'X-Kept': 'yes' },
    });
    const { id } = created.json();
    const etag = String(created.headers.etag);
    for (const [, headers] of cases) {
      const res = await call('PATCH', `/v1/webhook-endpoints/${id}`, { headers }, { 'if-match': etag });
      problem(res, 422, 'invalid_webhook_headers');
    }
    const now = await call('GET', `/v1/webhook-endpoints/${id}`);
    assert.equal(now.headers.etag, etag);
    assert.deepEqual(now.json().headers, { 'X-Kept': 'yes' });
  });

  test('a value that is not a string is a 400 validation_failed', async () => {
    problem(
      await call('POST', '/v1/webhook-endpoints', {
        url: 'http://127.0.0.1:9/h',
        eventTypes: ['*'],
        headers: { 'X-A': 1 },
      }),
      400,
      'validation_failed',
    );
  });
});
