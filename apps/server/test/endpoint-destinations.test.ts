// Issue 36: broker endpoints through the service. Created with `kind`, a broker URL and settings;
// credentials (given apart or as user info in the URL) never come back, in any answer; bad settings
// are a 400 that changes nothing; an event reaches a JetStream stream on 127.0.0.1 with its
// Nats-Msg-Id and a signature the consumer verifies.
import assert from 'node:assert/strict';
import { createConnection } from 'node:net';
import { after, before, test } from 'node:test';
import { verifySync } from '@surety/webhook-verify';
import { DeliveryWorker, parseAllowList } from '@surety/webhooks';
import { auth, createTestApp, type TestApp } from './helpers.js';

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

const natsUp = await new Promise<boolean>((resolve) => {
  const s = createConnection({ host: '127.0.0.1', port: 4222 });
  s.once('connect', () => resolve(true)).once('error', () => resolve(false));
  s.setTimeout(1000, () => resolve(false));
}).then((up) => up);

test('credentials are never returned: not at create, get, list or update', async () => {
  const created = await call('POST', '/v1/webhook-endpoints', {
    kind: 'amqp',
    url: 'amqp://svc:hunter2-secret@127.0.0.1:5672/',
    destination: { exchange: 'events', routingKey: 'surety.{type}' },
    eventTypes: ['*'],
  });
  assert.equal(created.statusCode, 201, created.body);
  const ep = created.json();
  assert.equal(ep.kind, 'amqp');
  assert.equal(ep.url, 'amqp://127.0.0.1:5672/');
  assert.deepEqual(ep.destination, { exchange: 'events', routingKey: 'surety.{type}' });
  assert.deepEqual(ep.credentials, { username: 'svc', password: '[redacted]' });
  const patched = await call(
    'PATCH',
    `/v1/webhook-endpoints/${ep.id}`,
    { credentials: { username: 'svc2', password: 'other-secret' } },
    { 'if-match': String(created.headers.etag) },
  );
  assert.equal(patched.statusCode, 200, patched.body);
  assert.deepEqual(patched.json().credentials, { username: 'svc2', password: '[redacted]' });
  const answers = [
    created.body,
    patched.body,
    (await call('GET', `/v1/webhook-endpoints/${ep.id}`)).body,
    (await call('GET', '/v1/webhook-endpoints')).body,
  ];
  for (const body of answers) assert.ok(!/hunter2|other-secret/.test(body), body);
});

test('bad kinds, URLs and settings are a 400 that creates nothing', async () => {
  const before = (await call('GET', '/v1/webhook-endpoints?limit=100')).json().data.length;
  for (const body of [
    { kind: 'kafka', url: 'kafka://127.0.0.1:9092', eventTypes: ['*'] },
    { kind: 'nats', url: 'https://127.0.0.1', destination: { subject: 'a' }, eventTypes: ['*'] },
    { kind: 'nats', url: 'nats://127.0.0.1:4222', destination: { subject: 'a.*' }, eventTypes: ['*'] },
    { kind: 'nats', url: 'nats://127.0.0.1:4222', eventTypes: ['*'] },
    { kind: 'mqtt', url: 'mqtt://127.0.0.1', destination: { topic: 'a', qos: 2 }, eventTypes: ['*'] },
    { kind: 'mqtt', url: 'mqtt://10.0.0.1', destination: { topic: 'a' }, eventTypes: ['*'] },
    { kind: 'amqp', url: 'amqp://127.0.0.1', destination: { subject: 'a' }, eventTypes: ['*'] },
    // Malformed percent-encoding in the user info or the vhost, and no host at all (were a 500, or a
    // 201 whose every delivery then failed).
    ...[
      'amqp://%ZZ:pw@127.0.0.1:5672/',
      'amqp://u:%F0%9F@127.0.0.1:5672/',
      'amqp://127.0.0.1:5672/%ZZ',
      'amqp:///',
      'amqp://',
    ].map((url) => ({ kind: 'amqp', url, destination: { exchange: '' }, eventTypes: ['*'] })),
    { kind: 'mqtt', url: 'mqtt://u:%F0%9F@127.0.0.1', destination: { topic: 'a' }, eventTypes: ['*'] },
    { kind: 'nats', url: 'nats:///', destination: { subject: 'a' }, eventTypes: ['*'] },
  ]) {
    const res = await call('POST', '/v1/webhook-endpoints', body);
    assert.equal(res.statusCode, 400, `${JSON.stringify(body)} → ${res.body}`);
    assert.ok(['validation_failed', 'invalid_webhook_url'].includes(res.json().code), res.body);
  }
  assert.equal((await call('GET', '/v1/webhook-endpoints?limit=100')).json().data.length, before);
  // The same URLs on an update: refused, and the endpoint keeps its URL.
  const created = await call('POST', '/v1/webhook-endpoints', {
    kind: 'amqp',
    url: 'amqp://127.0.0.1:5672/',
    destination: { exchange: '' },
    eventTypes: ['*'],
  });
  assert.equal(created.statusCode, 201, created.body);
  const { id } = created.json();
  for (const url of ['amqp://u:%ZZ@127.0.0.1/', 'amqp:///', 'amqp://127.0.0.1/%ZZ']) {
    const res = await call(
      'PATCH',
      `/v1/webhook-endpoints/${id}`,
      { url },
      { 'if-match': String(created.headers.etag) },
    );
    assert.equal(res.statusCode, 400, `${url} → ${res.body}`);
    assert.ok(['validation_failed', 'invalid_webhook_url'].includes(res.json().code), res.body);
  }
  assert.equal((await call('GET', `/v1/webhook-endpoints/${id}`)).json().url, 'amqp://127.0.0.1:5672/');
});

test('an event reaches a JetStream stream with its Nats-Msg-Id and a verifiable signature', {
  skip: natsUp ? false : 'no NATS on 127.0.0.1:4222 (.ci/run starts it)',
}, async () => {
  const { connect } = await import('nats');
  const nc = await connect({ servers: '127.0.0.1:4222' });
  const jsm = await nc.jetstreamManager();
  const stream = `SRV${Date.now()}`;
  await jsm.streams.add({ name: stream, subjects: [`${stream}.>`] });
  const worker = new DeliveryWorker({
    webhooks: t.app.webhooks,
    listen: false,
    guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
  });
  try {
    const created = await call('POST', '/v1/webhook-endpoints', {
      kind: 'nats',
      url: 'nats://127.0.0.1:4222',
      destination: { subject: `${stream}.{type}` },
      eventTypes: ['*'],
    });
    assert.equal(created.statusCode, 201, created.body);
    const { id, secret } = created.json();
    assert.equal((await call('POST', `/v1/webhook-endpoints/${id}/test`)).statusCode, 202);
    await worker.drain();
    const m = await jsm.streams.getMessage(stream, { seq: 1 });
    const body = new TextDecoder().decode(m.data);
    const headers: Record<string, string> = {};
    for (const k of m.header.keys()) headers[k.toLowerCase()] = m.header.get(k);
    const verified = verifySync({ body, headers, secrets: secret });
    assert.equal(m.header.get('Nats-Msg-Id'), verified.id);
    assert.equal(JSON.parse(body).id, verified.id);
    const deliveries = (await call('GET', `/v1/webhook-endpoints/${id}/deliveries`)).json();
    assert.equal(deliveries.data[0].status, 'delivered', JSON.stringify(deliveries));
    const attempts = (await call('GET', `/v1/deliveries/${deliveries.data[0].id}/attempts`)).json();
    assert.deepEqual(
      attempts.data.map((a: { errorCode: unknown; status: unknown }) => [a.errorCode, a.status]),
      [[null, null]],
    );
    // The broker's confirmation is a success in the endpoint's health, as a 2xx is for a webhook.
    const health = (await call('GET', `/v1/webhook-endpoints/${id}`)).json().health;
    assert.deepEqual([health.attempts24h, health.successRate24h], [1, 1], JSON.stringify(health));
  } finally {
    await worker.stop();
    await jsm.streams.delete(stream);
    await nc.close();
  }
});

test("the tenant's AsyncAPI document carries each broker endpoint's channel and bindings, and parses", async () => {
  const created = await call('POST', '/v1/webhook-endpoints', {
    kind: 'mqtt',
    url: 'mqtt://user:mqtt-secret@127.0.0.1:1883',
    destination: { topic: 'acme/{type}' },
    eventTypes: ['order.shipped'],
  });
  assert.equal(created.statusCode, 201, created.body);
  const { id } = created.json();
  const res = await call('GET', '/v1/asyncapi.json');
  assert.equal(res.statusCode, 200);
  assert.ok(!res.body.includes('mqtt-secret'), 'no credentials in the contract');
  const doc = res.json();
  assert.equal(doc.channels[id].address, 'acme/{type}');
  assert.deepEqual(doc.channels[id].parameters.type.enum, ['order.shipped']);
  assert.deepEqual(doc.operations[`publish_${id}`].bindings.mqtt, {
    qos: 1,
    retain: false,
    bindingVersion: '0.2.0',
  });
  assert.equal(doc.servers[id].host, '127.0.0.1:1883');
  const { Parser } = await import('@asyncapi/parser');
  const { diagnostics } = await new Parser().parse(res.body);
  assert.deepEqual(
    diagnostics.filter((d) => d.severity === 0).map((d) => `${d.code} ${d.path.join('/')}: ${d.message}`),
    [],
  );
});
