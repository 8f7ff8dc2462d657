import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DeliveryWorker, parseAllowList } from '@surety/webhooks';
import { claimOnce, startReceiver, webhooksInternals } from '@surety/webhooks/testing';
import { serviceRegistry } from '../src/service-events.js';
import { auth, createTestApp, newKey, PAYMENT, postPayment, type TestApp } from './helpers.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

test('/openapi.json documents every route with every status it can answer', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(res.statusCode, 200);
  const doc = res.json();
  assert.equal(doc.openapi, '3.1.0');
  const op = (path: string, method: string) => doc.paths[path]?.[method];
  const statuses = (path: string, method: string) => Object.keys(op(path, method)?.responses ?? {}).sort();
  const expectations: [string, string, string[]][] = [
    ['/v1/payments', 'post', ['201', '400', '401', '409', '413', '415', '422', '503']],
    ['/v1/orders/{id}', 'put', ['200', '201', '400', '401', '409', '412', '422', '428']],
    ['/v1/orders/{id}', 'patch', ['200', '412', '428']],
    ['/v1/orders/{id}', 'get', ['200', '304', '404']],
    ['/v1/orders/{id}/ship', 'post', ['200', '409', '412', '422', '428']],
    ['/v1/inventory/{sku}/reservations', 'post', ['201', '409', '422']],
    ['/v1/webhook-endpoints/{id}', 'patch', ['200', '412', '428']],
    ['/v1/events', 'post', ['201', '409', '422']],
  ];
  for (const [path, method, expected] of expectations) {
    const got = statuses(path, method);
    for (const s of expected)
      assert.ok(got.includes(s), `${method.toUpperCase()} ${path} lacks ${s} (has ${got})`);
  }
  // every /v1 route is there
  const routes = t.app.printRoutes({ commonPrefix: false });
  for (const path of [
    '/v1/payments',
    '/v1/webhook-endpoints',
    '/v1/deliveries/{id}/attempts',
    '/v1/events/{id}/replay',
  ]) {
    assert.ok(doc.paths[path], `${path} missing from the document (routes: ${routes.length} chars)`);
  }
  assert.ok(doc.components.securitySchemes.bearer);
});

test('/docs renders the OpenAPI document without an API key', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/docs/' });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /text\/html/);
  assert.match(res.body, /swagger/i);
});

test('/docs is served with a strict CSP, no framing and nosniff, and loads nothing the CSP refuses (issue 15, D7)', async () => {
  // Swagger UI shares its origin with the dashboard (which holds an API key): a script injected into
  // /docs, or /docs framed by another site, would reach it.
  for (const url of [
    '/docs/',
    '/docs/static/swagger-ui-bundle.js',
    '/docs/static/swagger-initializer.js',
    '/docs/json',
  ]) {
    const res = await t.app.inject({ method: 'GET', url });
    assert.equal(res.statusCode, 200, url);
    const csp = String(res.headers['content-security-policy'] ?? '');
    assert.match(csp, /(^|; )script-src 'self'(;|$)/, `${url}: ${csp}`);
    assert.match(csp, /(^|; )style-src 'self'(;|$)/, url);
    assert.match(csp, /(^|; )frame-ancestors 'none'(;|$)/, url);
    assert.match(csp, /(^|; )object-src 'none'(;|$)/, url);
    assert.match(csp, /(^|; )base-uri 'none'(;|$)/, url);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https:|\*/, url);
    assert.equal(res.headers['x-frame-options'], 'DENY', url);
    assert.equal(res.headers['x-content-type-options'], 'nosniff', url);
    assert.equal(res.headers['referrer-policy'], 'no-referrer', url);
  }
  // What the page loads, the CSP allows: same-origin scripts and styles only, nothing inline.
  const page = (await t.app.inject({ method: 'GET', url: '/docs/' })).body;
  assert.doesNotMatch(page, /<script(?![^>]*\bsrc=)[^>]*>/i, 'no inline script');
  assert.doesNotMatch(page, /<style|\sstyle=|\son[a-z]+=/i, 'no inline style or handler');
  for (const [, src] of page.matchAll(/(?:src|href)="([^"]+)"/g)) {
    assert.ok(src!.startsWith('./'), `loads ${src} from elsewhere`);
    const res = await t.app.inject({ method: 'GET', url: new URL(src!, 'http://x/docs/').pathname });
    assert.equal(res.statusCode, 200, src);
  }
  // The UI asks no outside validator (validator.swagger.io would be refused by connect-src/img-src).
  const init = (await t.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' })).body;
  assert.match(init, /"validatorUrl":null/);
});

test('/metrics shows open circuit breakers, their transitions and the deliveries they hold', async () => {
  const rx = await startReceiver((_r, _n, res) => void res.writeHead(500).end());
  try {
    const ep = await t.app.inject({
      method: 'POST',
      url: '/v1/webhook-endpoints',
      headers: { ...auth('globex'), 'content-type': 'application/json' },
      payload: JSON.stringify({ url: rx.url, eventTypes: ['*'] }),
    });
    assert.equal(ep.statusCode, 201);
    const worker = new DeliveryWorker({
      webhooks: t.app.webhooks,
      listen: false,
      concurrency: 1,
      batchSize: 1,
      circuitThreshold: 2,
      circuitProbeMs: 600_000,
      guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
    });
    t.app.metrics.observeWorker(worker);
    for (let i = 0; i < 5; i++) {
      await t.db.sql.transaction((tx) =>
        t.app.webhooks.publish(tx, {
          tenant: 'globex',
          type: 'inventory.reserved',
          data: serviceRegistry().get('inventory.reserved')!.sample,
          endpointId: ep.json().id,
        }),
      );
    }
    await worker.drain();
    assert.equal(rx.received.length, 2);
    const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.match(text, /surety_webhook_circuits\{state="open"\} 1\b/);
    assert.match(text, /surety_webhook_circuits\{state="half_open"\} 0\b/);
    assert.match(text, /surety_webhook_circuit_transitions_total\{transition="opened"\} 1\b/);
    // the two failed and the three never sent: all five wait behind the probe
    assert.match(text, /surety_webhook_circuit_held_total 5\b/);
  } finally {
    await rx.close();
    // the held deliveries would count in the next test's backlog
    await t.db.sql.query(
      `update "${t.db.schema}".webhook_deliveries set status = 'failed' where tenant = 'globex' and status = 'pending'`,
    );
  }
});

test('/metrics counts requests by route and status, and idempotency outcomes', async () => {
  const key = newKey();
  await postPayment(t.app, PAYMENT, { 'idempotency-key': key });
  await postPayment(t.app, PAYMENT, { 'idempotency-key': key });
  await postPayment(t.app, { ...PAYMENT, amount: '7' }, { 'idempotency-key': key });
  await t.app.inject({ method: 'GET', url: '/v1/payments', headers: auth('acme') });
  const res = await t.app.inject({ method: 'GET', url: '/metrics' });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /text\/plain/);
  const text = res.body;
  const value = (line: RegExp) => Number(line.exec(text)?.[1] ?? Number.NaN);
  assert.ok(value(/surety_idempotency_outcomes_total\{outcome="executed"\} (\d+)/) >= 1);
  assert.ok(value(/surety_idempotency_outcomes_total\{outcome="replayed"\} (\d+)/) >= 1);
  assert.ok(value(/surety_idempotency_outcomes_total\{outcome="mismatch"\} (\d+)/) >= 1);
  // the stored response's size: one text body per executed key, its bytes in _sum
  assert.ok(value(/surety_idempotency_stored_body_bytes_count\{encoding="text"\} (\d+)/) >= 1);
  assert.ok(value(/surety_idempotency_stored_body_bytes_sum\{encoding="text"\} (\d+)/) > 50);
  assert.ok(
    value(/surety_http_requests_total\{route="\/v1\/payments",method="POST",status="201"\} (\d+)/) >= 2,
  );
  assert.ok(
    value(/surety_http_requests_total\{route="\/v1\/payments",method="POST",status="422"\} (\d+)/) >= 1,
  );
  assert.match(text, /surety_webhook_backlog\{state="due"\} \d+/);
  assert.match(text, /surety_webhook_oldest_due_seconds \d/);
});

test('/metrics counts a claimed delivery as in flight, not due, until its lease passes', async () => {
  const ep = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    headers: { ...auth('acme'), 'content-type': 'application/json' },
    payload: JSON.stringify({ url: 'http://127.0.0.1:9/metrics-test', eventTypes: ['*'] }),
  });
  assert.equal(ep.statusCode, 201);
  await postPayment(t.app, PAYMENT, { 'idempotency-key': newKey() });
  await postPayment(t.app, PAYMENT, { 'idempotency-key': newKey() });
  const pending = await t.count('webhook_deliveries', "status = 'pending'");
  assert.ok(pending >= 2);
  const now = Date.now();
  const { webhooks } = t.app;
  const claimed = await t.db.sql.transaction(
    (tx) =>
      claimOnce(tx, webhooks, [
        new Date(now + 1000).toISOString(),
        1,
        new Date(now + 60_000).toISOString(),
        'metrics-test',
        200,
        32,
        48,
        [],
        [],
        [],
      ]),
    { first: webhooksInternals(webhooks).st.claimSettings },
  );
  assert.equal(claimed.rows.length, 1);
  const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
  const value = (state: string) =>
    Number(new RegExp(`surety_webhook_backlog\\{state="${state}"\\} (\\d+)`).exec(text)?.[1] ?? Number.NaN);
  assert.equal(value('in_flight'), 1);
  assert.equal(value('due'), pending - 1);
  assert.equal(value('scheduled'), 0);
});
