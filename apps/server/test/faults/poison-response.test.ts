// A receiver's answer PostgreSQL cannot store, through the service (issue 15, D1). Tenant acme's
// endpoint answers 500 with the body `bad\0byte`; tenant globex's, at the same moment and in the
// same claimed batch, answers 200. Before the fix the outcome batch failed on the NUL
// (`invalid byte sequence for encoding "UTF8": 0x00`) and was retried forever with every later
// outcome: globex's delivery stayed pending and was sent again at every lease expiry. Now globex's
// delivery completes, nothing is sent twice after a lease period, and acme's attempt is listed
// with its excerpt sanitised and counted in /metrics. A second case makes one attempt row unwritable
// (a constraint of the test's own schema): isolated, counted, nothing held up. Runs on PGlite and on
// PostgreSQL; loopback only.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DeliveryWorker, parseAllowList } from '@surety/webhooks';
import { startReceiver } from '@surety/webhooks/testing';
import { auth, createTestApp, type TestApp } from '../helpers.js';
import { report } from './lib.js';

type Tenant = 'acme' | 'globex';
const LEASE_MS = 2000;
let t: TestApp;
let worker: DeliveryWorker;
const receivers: { close(): Promise<void> }[] = [];

before(async () => {
  t = await createTestApp();
  worker = new DeliveryWorker({
    webhooks: t.app.webhooks,
    listen: false,
    random: () => 0,
    leaseMs: LEASE_MS,
    schedule: [30, 300],
    guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
  });
  t.app.metrics.observeWorker(worker);
});
after(async () => {
  await worker.stop();
  await Promise.all(receivers.map((r) => r.close()));
  await t.close();
});

const call = (tenant: Tenant, method: 'GET' | 'POST', url: string, body?: unknown) =>
  t.app.inject({
    method,
    url,
    headers: { ...auth(tenant), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

async function endpointAnswering(tenant: Tenant, status: number, body: string) {
  const rx = await startReceiver((_r, _n, res) => void res.writeHead(status).end(body));
  receivers.push(rx);
  const created = await call(tenant, 'POST', '/v1/webhook-endpoints', { url: rx.url, eventTypes: ['*'] });
  assert.equal(created.statusCode, 201, created.body);
  return { rx, id: created.json().id as string };
}

const deliveryOf = async (tenant: Tenant, endpointId: string) => {
  const res = await call(tenant, 'GET', `/v1/webhook-endpoints/${endpointId}/deliveries`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data[0] as { id: string; status: string; attempts: number; lastError: string | null };
};

const metric = (text: string, line: RegExp) => Number(line.exec(text)?.[1] ?? Number.NaN);

test('a NUL in one tenant’s receiver answer never stops or duplicates another tenant’s delivery', async () => {
  const poison = await endpointAnswering('acme', 500, 'bad\0byte');
  const healthy = await endpointAnswering('globex', 200, 'ok');
  for (const [tenant, ep] of [
    ['acme', poison],
    ['globex', healthy],
  ] as const) {
    const sent = await call(tenant, 'POST', `/v1/webhook-endpoints/${ep.id}/test`);
    assert.equal(sent.statusCode, 202, sent.body);
  }
  // Both deliveries in one claimed batch, their outcomes in one statement.
  assert.equal(await worker.drain(), 2);

  const ok = await deliveryOf('globex', healthy.id);
  assert.equal(ok.status, 'delivered', JSON.stringify(ok));
  const bad = await deliveryOf('acme', poison.id);
  assert.deepEqual([bad.status, bad.attempts, bad.lastError], ['pending', 1, 'http_500']);
  const attempts = await call('acme', 'GET', `/v1/deliveries/${bad.id}/attempts`);
  assert.equal(attempts.statusCode, 200, attempts.body);
  assert.deepEqual(
    attempts
      .json()
      .data.map((a: { status: number; errorCode: string; responseExcerpt: string }) => [
        a.status,
        a.errorCode,
        a.responseExcerpt,
      ]),
    [[500, 'http_500', 'bad\uFFFDbyte']],
  );
  // Another tenant cannot read it.
  assert.equal((await call('globex', 'GET', `/v1/deliveries/${bad.id}/attempts`)).statusCode, 404);

  // A lease period later (the retry is 30 s away): nothing is claimed or sent again.
  t.clock.now += 2 * LEASE_MS;
  assert.equal(await worker.drain(), 0);
  assert.equal(healthy.rx.received.length, 1, 'the healthy event reached its receiver once');
  assert.equal(poison.rx.received.length, 1);

  const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
  assert.equal(metric(text, /surety_webhook_unstorable_outcomes_total\{handled="replaced"\} (\d+)/), 1);
  assert.equal(metric(text, /surety_webhook_attempts_total\{outcome="retry"\} (\d+)/), 1);
  assert.equal(metric(text, /surety_webhook_attempts_total\{outcome="delivered"\} (\d+)/), 1);
  report({
    scenario: 'poison-response',
    operations: 2,
    faults: 1,
    lost: ok.status === 'delivered' ? 0 : 1,
    duplicated: healthy.rx.received.length - 1,
    notes: `excerpt stored as ${JSON.stringify(attempts.json().data[0].responseExcerpt)}`,
  });
});

test('a row the database refuses even sanitised is isolated: the other tenant’s delivery completes, the refusal is counted', async () => {
  const refused = await endpointAnswering('acme', 200, 'fine');
  const healthy = await endpointAnswering('globex', 200, 'ok');
  for (const [tenant, ep] of [
    ['acme', refused],
    ['globex', healthy],
  ] as const) {
    assert.equal((await call(tenant, 'POST', `/v1/webhook-endpoints/${ep.id}/test`)).statusCode, 202);
  }
  const target = await deliveryOf('acme', refused.id);
  // The test's own rule: this delivery's attempt row can never be written (SQLSTATE 23514).
  const A = `"${t.db.schema}".webhook_attempts`;
  await t.db.sql.query(`alter table ${A} add constraint refuse_one check (delivery_id <> '${target.id}')`);
  try {
    assert.equal(await worker.drain(), 2);
  } finally {
    await t.db.sql.query(`alter table ${A} drop constraint refuse_one`);
  }
  assert.equal((await deliveryOf('globex', healthy.id)).status, 'delivered');
  const kept = await deliveryOf('acme', refused.id);
  assert.deepEqual([kept.status, kept.lastError], ['delivered', 'attempt_unrecorded']);
  t.clock.now += 2 * LEASE_MS;
  assert.equal(await worker.drain(), 0);
  assert.deepEqual([refused.rx.received.length, healthy.rx.received.length], [1, 1]);
  const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
  assert.equal(
    metric(text, /surety_webhook_unstorable_outcomes_total\{handled="attempt_dropped"\} (\d+)/),
    1,
  );
});
