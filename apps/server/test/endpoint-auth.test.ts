// Issue 37: receiver authentication through the service. Set with the endpoint (create, PATCH with
// If-Match, a portal session of its application), shown redacted (never a password, client secret
// or key, in any answer), applied to deliveries; anything unusable is a 422 `invalid_webhook_auth`
// that changes nothing; another tenant gets 404. The engine's own tests (packages/webhooks/test/
// receiver-auth.test.ts) cover OAuth2 and mTLS end to end.
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

const call = (
  method: 'POST' | 'PATCH' | 'GET',
  url: string,
  body?: unknown,
  headers: Record<string, string> = auth('acme'),
) =>
  t.app.inject({
    method,
    url,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

test('basic auth: set, shown redacted everywhere, sent to the receiver; rotated with If-Match', async () => {
  const good = `Basic ${Buffer.from('surety:pw-two').toString('base64')}`;
  const rx = await startReceiver(
    (r, _n, res) => void res.writeHead(r.headers.authorization === good ? 204 : 401).end(),
  );
  const worker = new DeliveryWorker({
    webhooks: t.app.webhooks,
    listen: false,
    guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
  });
  try {
    const created = await call('POST', '/v1/webhook-endpoints', {
      url: rx.url,
      eventTypes: ['*'],
      auth: { type: 'basic', username: 'surety', password: 'pw-one-SECRET' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const ep = created.json();
    assert.deepEqual(ep.auth, { type: 'basic', username: 'surety' });
    for (const r of [
      created,
      await call('GET', `/v1/webhook-endpoints/${ep.id}`),
      await call('GET', '/v1/webhook-endpoints'),
    ])
      assert.ok(!r.body.includes('pw-one-SECRET'), 'the password is never returned');
    // Another tenant cannot change it.
    const foreign = await call(
      'PATCH',
      `/v1/webhook-endpoints/${ep.id}`,
      { auth: null },
      {
        ...auth('globex'),
        'if-match': String(created.headers.etag),
      },
    );
    problem(foreign, 404, 'not_found');

    assert.equal((await call('POST', `/v1/webhook-endpoints/${ep.id}/test`)).statusCode, 202);
    await worker.drain();
    assert.equal(
      rx.received.at(-1)?.headers.authorization,
      `Basic ${Buffer.from('surety:pw-one-SECRET').toString('base64')}`,
    );

    const patched = await call(
      'PATCH',
      `/v1/webhook-endpoints/${ep.id}`,
      { auth: { type: 'basic', username: 'surety', password: 'pw-two' } },
      { ...auth('acme'), 'if-match': String(created.headers.etag) },
    );
    assert.equal(patched.statusCode, 200, patched.body);
    assert.deepEqual(patched.json().auth, { type: 'basic', username: 'surety' });
    assert.equal((await call('POST', `/v1/webhook-endpoints/${ep.id}/test`)).statusCode, 202);
    await worker.drain();
    assert.equal(rx.received.at(-1)?.headers.authorization, good);
  } finally {
    await worker.stop();
    await rx.close();
  }
});

test('422 invalid_webhook_auth for auth that cannot be used; nothing is created or changed', async () => {
  const bad: unknown[] = [
    { type: 'basic', username: 'a:b', password: 'p' },
    { type: 'oauth2', tokenUrl: 'http://169.254.169.254/latest', clientId: 'c', clientSecret: 's' },
    { type: 'oauth2', tokenUrl: 'https://10.1.2.3/token', clientId: 'c', clientSecret: 's' },
    { type: 'mtls', certificate: 'not a certificate', privateKey: 'not a key' },
    {
      type: 'mtls',
      certificate: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
      privateKey: 'x',
    },
  ];
  const { rows } = await t.db.sql.query<{ n: string }>(
    `select count(*)::text as n from "${t.db.schema}".webhook_endpoints`,
  );
  for (const a of bad) {
    const r = await call('POST', '/v1/webhook-endpoints', {
      url: 'https://example.com/x',
      eventTypes: ['*'],
      auth: a,
    });
    problem(r, 422, 'invalid_webhook_auth');
    const { errors } = r.json() as { errors: { path: string }[] };
    assert.match(String(errors[0]?.path), /^\/auth/);
  }
  // Outside the schema (unknown type, unknown field): the usual 400.
  problem(
    await call('POST', '/v1/webhook-endpoints', {
      url: 'https://example.com/x',
      eventTypes: ['*'],
      auth: { type: 'digest' },
    }),
    400,
    'validation_failed',
  );
  const after = await t.db.sql.query<{ n: string }>(
    `select count(*)::text as n from "${t.db.schema}".webhook_endpoints`,
  );
  assert.equal(after.rows[0]!.n, rows[0]!.n);

  const ep = await call('POST', '/v1/webhook-endpoints', { url: 'https://example.com/y', eventTypes: ['*'] });
  const r = await call(
    'PATCH',
    `/v1/webhook-endpoints/${ep.json().id}`,
    { auth: { type: 'oauth2', tokenUrl: 'https://[fd00::1]/t', clientId: 'c', clientSecret: 's' } },
    { ...auth('acme'), 'if-match': String(ep.headers.etag) },
  );
  problem(r, 422, 'invalid_webhook_auth');
  const now = await call('GET', `/v1/webhook-endpoints/${ep.json().id}`);
  assert.equal(now.headers.etag, ep.headers.etag);
  assert.equal(now.json().auth, null);
});

test("a portal session sets its application's endpoint auth", async () => {
  const app = await call('POST', '/v1/applications', { name: 'Customer 1', uid: 'cus-auth-1' });
  assert.equal(app.statusCode, 201, app.body);
  const session = await call('POST', `/v1/applications/${app.json().id}/portal-sessions`, {});
  assert.equal(session.statusCode, 201, session.body);
  const bearer = { authorization: `Bearer ${session.json().token}` };
  const created = await call(
    'POST',
    '/v1/webhook-endpoints',
    {
      url: 'https://example.com/portal',
      eventTypes: ['*'],
      auth: {
        type: 'oauth2',
        tokenUrl: 'https://auth.example.com/token',
        clientId: 'c',
        clientSecret: 'cs-SECRET',
      },
    },
    bearer,
  );
  assert.equal(created.statusCode, 201, created.body);
  assert.equal(created.json().auth.clientId, 'c');
  assert.ok(!created.body.includes('cs-SECRET'));
});
