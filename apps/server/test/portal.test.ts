// The consumer portal's server side (docs/portal.md): opening and revoking sessions, the portal
// settings, the token as a bearer credential (scoped to one application, read-only when asked, 401
// when expired or revoked, 403 on every route that does not take it), and the page's headers per
// tenant. Application A's session must see only A's endpoints, events, deliveries and attempts:
// every id of application B, or of the tenant's own, is a 404, and nothing of B's changes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { DeliveryWorker, parseAllowList } from '@surety/webhooks';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp, LOG_REDACT } from '../src/app.js';
import { parseApiKeys } from '../src/config.js';
import { PORTAL_CSP_BASE } from '../src/portal/page.js';
import { serviceRegistry } from '../src/service-events.js';
import { API_KEYS, auth, createTestApp, newKey, problem, type TestApp } from './helpers.js';

let t: TestApp;
const sample = (type: string) =>
  structuredClone(serviceRegistry().get(type)!.sample) as Record<string, unknown>;

type Headers = Record<string, string>;
const bearer = (token: string): Headers => ({ authorization: `Bearer ${token}` });
function send(
  method: string,
  url: string,
  headers: Headers,
  body?: unknown,
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: method as 'GET',
    url,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}
const asAcme = (method: string, url: string, body?: unknown, headers: Headers = {}) =>
  send(method, url, { ...auth('acme'), ...headers }, body);

/** The routes docs/portal.md's route table lists (`GET`, `PATCH`, `DELETE /v1/x/{id}`, `/enable`). */
function documentedPortalRoutes(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const row of markdown.split('\n').filter((l) => /^\| `(GET|POST|PATCH|PUT|DELETE)/.test(l))) {
    let pending: string[] = [];
    let method = '';
    let path = '';
    for (const item of row.split('|')[1]!.matchAll(/`([^`]+)`/g)) {
      const [m, p] = item[1]!.includes(' ')
        ? item[1]!.split(' ')
        : /^[A-Z]+$/.test(item[1]!)
          ? [item[1]!, '']
          : ['', item[1]!];
      if (m && !p) {
        pending.push(m);
        continue;
      }
      if (m) method = m;
      path = p!.startsWith('/v1') ? p! : path.replace(/\/[^/]+$/, '') + p;
      for (const x of [...pending, method]) out.add(`${x} ${path}`);
      pending = [];
    }
  }
  return out;
}

async function expect(res: Promise<LightMyRequestResponse> | LightMyRequestResponse, status: number) {
  const r = await res;
  assert.equal(r.statusCode, status, `${r.statusCode} ${r.body}`);
  return r;
}

interface Session {
  id: string;
  token: string;
  url: string;
  expiresAt: string;
  readOnly: boolean;
  applicationId: string;
}
async function openSession(application: string, body: unknown = {}, headers: Headers = {}): Promise<Session> {
  const r = await expect(
    asAcme('POST', `/v1/applications/${application}/portal-sessions`, body, headers),
    201,
  );
  return r.json();
}

/** What the fixture made: two applications of acme, an endpoint of each and one of acme itself. */
const F = {
  appA: '',
  appB: '',
  epA: '',
  epA2: '',
  epB: '',
  epTenant: '',
  evA: '',
  evB: '',
  evTenant: '',
  dlvA: '',
  dlvB: '',
  dlvTenant: '',
  globexApp: '',
};
let sA: Session;
let sAro: Session;
let sB: Session;

// Applications, their endpoints and their events are made with the engine: what this file tests is
// what a portal session can do with them.
const w = () => t.app.webhooks;
async function createApplication(tenant: 'acme' | 'globex', name: string, uid: string) {
  return (await w().createApplication(t.db.sql, { tenant, name, uid })).id;
}
async function createEndpoint(applicationId?: string) {
  const { endpoint } = await w().createEndpoint(t.db.sql, {
    tenant: 'acme',
    url: 'http://127.0.0.1:9/hook',
    eventTypes: ['*'],
    ...(applicationId ? { applicationId } : {}),
  });
  return endpoint.id;
}
async function publish(application?: string) {
  const event = await t.db.sql.transaction((tx) =>
    w().publish(tx, {
      tenant: 'acme',
      type: 'payment.created',
      data: sample('payment.created'),
      ...(application ? { application } : {}),
    }),
  );
  return event.id;
}
async function deliveryOf(endpoint: string) {
  const r = await expect(asAcme('GET', `/v1/webhook-endpoints/${endpoint}/deliveries`), 200);
  return r.json().data[0].id as string;
}

before(async () => {
  t = await createTestApp();
  F.appA = await createApplication('acme', 'A', 'customer-a');
  F.appB = await createApplication('acme', 'B', 'customer-b');
  F.globexApp = await createApplication('globex', 'G', 'customer-a');
  F.epA = await createEndpoint(F.appA);
  F.epA2 = await createEndpoint('customer-a');
  F.epB = await createEndpoint(F.appB);
  F.epTenant = await createEndpoint();
  F.evA = await publish(F.appA);
  F.evB = await publish(F.appB);
  F.evTenant = await publish();
  // One attempt each (port 9 refuses), so every delivery has an attempt to read.
  const worker = new DeliveryWorker({
    webhooks: t.app.webhooks,
    listen: false,
    random: () => 0,
    guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
  });
  await worker.drain();
  F.dlvA = await deliveryOf(F.epA);
  F.dlvB = await deliveryOf(F.epB);
  F.dlvTenant = await deliveryOf(F.epTenant);
  for (const [k, v] of Object.entries(F)) assert.ok(v, `fixture ${k}`);
  sA = await openSession(F.appA);
  sAro = await openSession('customer-a', { readOnly: true });
  sB = await openSession(F.appB);
});
after(() => t.close());

describe('POST /v1/applications/{id}/portal-sessions', () => {
  test('201: a link with the token in its fragment, the token, an hour by default', async () => {
    const before = t.clock.now;
    const s = await openSession(F.appA);
    assert.match(s.id, /^ps_[0-9A-Za-z]{22}$/);
    assert.match(s.token, new RegExp(`^${s.id}\\.[A-Za-z0-9_-]{43}$`));
    assert.equal(s.url, `http://localhost:80/portal/${s.id}#token=${s.token}`);
    assert.equal(s.applicationId, F.appA);
    assert.equal(s.readOnly, false);
    assert.equal(Date.parse(s.expiresAt), before + 3600_000);
    // Only the hash of the secret is stored: no column holds the token or its secret.
    const rows = await t.db.sql.query(`select * from "${t.db.schema}".portal_sessions where id = $1`, [s.id]);
    const stored = JSON.stringify(rows.rows);
    assert.ok(!stored.includes(s.token.split('.')[1]!), 'the secret is not stored');
  });

  test('by uid, with expiresInSeconds and readOnly', async () => {
    const s = await openSession('customer-b', { expiresInSeconds: 60, readOnly: true });
    assert.equal(s.applicationId, F.appB);
    assert.equal(s.readOnly, true);
    assert.equal(Date.parse(s.expiresAt), t.clock.now + 60_000);
  });

  test('Idempotency-Key: the same session again, replayed; another body is 422', async () => {
    const key = newKey();
    const first = await asAcme(
      'POST',
      `/v1/applications/${F.appA}/portal-sessions`,
      {},
      { 'idempotency-key': key },
    );
    const again = await asAcme(
      'POST',
      `/v1/applications/${F.appA}/portal-sessions`,
      {},
      { 'idempotency-key': key },
    );
    assert.equal(first.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.json().id, first.json().id);
    const n = await t.count('portal_sessions', 'id = $1', [first.json().id]);
    assert.equal(n, 1);
    problem(
      await asAcme(
        'POST',
        `/v1/applications/${F.appA}/portal-sessions`,
        { readOnly: true },
        { 'idempotency-key': key },
      ),
      422,
      'idempotency_key_reused',
    );
  });

  test('an unknown application, or another tenant’s, is 404; bad bodies are 400; nothing is stored', async () => {
    const before = await t.count('portal_sessions');
    problem(
      await asAcme('POST', '/v1/applications/app_0000000000000000000000/portal-sessions', {}),
      404,
      'not_found',
    );
    problem(await asAcme('POST', `/v1/applications/${F.globexApp}/portal-sessions`, {}), 404, 'not_found');
    for (const body of [
      { expiresInSeconds: 59 },
      { expiresInSeconds: 86_401 },
      { expiresInSeconds: 1.5 },
      { expiresInSeconds: '600' },
      { readOnly: 'yes' },
      { scope: 'all' },
      [],
    ]) {
      problem(
        await asAcme('POST', `/v1/applications/${F.appA}/portal-sessions`, body),
        400,
        'validation_failed',
      );
    }
    assert.equal(await t.count('portal_sessions'), before);
  });

  test('SURETY_PUBLIC_URL is the base of the link', async () => {
    const db = t.db;
    const app = await buildApp({
      sql: db.sql,
      config: {
        apiKeys: parseApiKeys(API_KEYS),
        bodyLimit: 65_536,
        idempotencyTtlMs: 60_000,
        schema: db.schema,
        publicUrl: 'https://hooks.example.com/base',
      },
      webhooks: t.app.webhooks,
    });
    try {
      const r = await app.inject({
        method: 'POST',
        url: `/v1/applications/${F.appA}/portal-sessions`,
        headers: { ...auth('acme'), 'content-type': 'application/json', host: 'evil.example' },
        payload: '{}',
      });
      const s = r.json() as Session;
      assert.equal(s.url, `https://hooks.example.com/base/portal/${s.id}#token=${s.token}`);
    } finally {
      await app.close();
    }
  });
});

describe('the token', () => {
  test('a session for app A sees only app A’s endpoints, events and deliveries', async () => {
    const a = bearer(sA.token);
    const endpoints = (await expect(send('GET', '/v1/webhook-endpoints?limit=100', a), 200)).json().data;
    assert.deepEqual(endpoints.map((e: { id: string }) => e.id).sort(), [F.epA, F.epA2].sort());
    for (const e of endpoints) assert.equal(e.secret, undefined);
    const events = (await expect(send('GET', '/v1/events?limit=100', a), 200)).json().data;
    assert.deepEqual(
      events.map((e: { id: string }) => e.id),
      [F.evA],
    );
    await expect(send('GET', `/v1/events/${F.evA}`, a), 200);
    const deliveries = (await expect(send('GET', `/v1/events/${F.evA}/deliveries`, a), 200)).json().data;
    assert.deepEqual(
      deliveries.map((d: { endpointId: string }) => d.endpointId).sort(),
      [F.epA, F.epA2].sort(),
    );
    await expect(send('GET', `/v1/webhook-endpoints/${F.epA}`, a), 200);
    await expect(send('GET', `/v1/webhook-endpoints/${F.epA}/deliveries`, a), 200);
    const attempts = (await expect(send('GET', `/v1/deliveries/${F.dlvA}/attempts`, a), 200)).json().data;
    assert.equal(attempts.length, 1);
  });

  test('every id of another application, or of the tenant itself, is a 404 and changes nothing', async () => {
    const a = bearer(sA.token);
    const snapshot = async () =>
      JSON.stringify(
        await Promise.all(
          [
            `/v1/webhook-endpoints/${F.epB}`,
            `/v1/webhook-endpoints/${F.epTenant}`,
            '/v1/webhook-endpoints?limit=100',
            `/v1/events/${F.evB}/deliveries`,
            `/v1/events/${F.evTenant}/deliveries`,
          ].map(async (url) => (await asAcme('GET', url)).json()),
        ),
      );
    const before = await snapshot();
    for (const ep of [F.epB, F.epTenant]) {
      const etag = String((await asAcme('GET', `/v1/webhook-endpoints/${ep}`)).headers.etag);
      const cases: [string, string, unknown?, Headers?][] = [
        ['GET', `/v1/webhook-endpoints/${ep}`],
        ['PATCH', `/v1/webhook-endpoints/${ep}`, { description: 'stolen' }, { 'if-match': etag }],
        ['DELETE', `/v1/webhook-endpoints/${ep}`],
        ['POST', `/v1/webhook-endpoints/${ep}/rotate-secret`, { overlapSeconds: 0 }],
        ['POST', `/v1/webhook-endpoints/${ep}/enable`],
        ['POST', `/v1/webhook-endpoints/${ep}/disable`, { reason: 'x' }],
        ['POST', `/v1/webhook-endpoints/${ep}/test`],
        ['POST', `/v1/webhook-endpoints/${ep}/recover`, { since: '2000-01-01T00:00:00Z' }],
        ['GET', `/v1/webhook-endpoints/${ep}/deliveries`],
        ['POST', `/v1/events/${F.evA}/replay`, { endpointId: ep }],
      ];
      for (const [method, url, body, headers] of cases) {
        problem(await send(method, url, { ...a, ...headers }, body), 404, 'not_found');
      }
    }
    for (const ev of [F.evB, F.evTenant]) {
      for (const [method, url, body] of [
        ['GET', `/v1/events/${ev}`],
        ['GET', `/v1/events/${ev}/deliveries`],
        ['POST', `/v1/events/${ev}/replay`, {}],
      ] as const) {
        problem(await send(method, url, a, body), 404, 'not_found');
      }
    }
    for (const dlv of [F.dlvB, F.dlvTenant]) {
      problem(await send('GET', `/v1/deliveries/${dlv}/attempts`, a), 404, 'not_found');
    }
    assert.equal(await snapshot(), before, 'nothing of B or of the tenant changed');
  });

  test('an endpoint created through a session belongs to its application, and only to it', async () => {
    const a = bearer(sA.token);
    const r = await expect(
      send('POST', '/v1/webhook-endpoints', a, { url: 'http://127.0.0.1:9/a', eventTypes: ['*'] }),
      201,
    );
    assert.ok(r.json().secret, 'the secret is shown once, to the customer');
    const created = await w().getEndpoint(t.db.sql, { tenant: 'acme', id: r.json().id });
    assert.equal(created?.applicationId, F.appA);
    // Naming another application (or another tenant's) never creates an endpoint there: answered
    // as naming no application once the route takes applicationId, a 400 before.
    const before = await t.count('webhook_endpoints');
    for (const applicationId of [F.appB, 'customer-b', F.globexApp]) {
      const refused = await send('POST', '/v1/webhook-endpoints', a, {
        url: 'http://127.0.0.1:9/a',
        eventTypes: ['*'],
        applicationId,
      });
      assert.ok([400, 404, 422].includes(refused.statusCode), refused.body);
    }
    assert.equal(await t.count('webhook_endpoints'), before);
    await expect(send('DELETE', `/v1/webhook-endpoints/${r.json().id}`, a), 204);
  });

  test('replay from a session reaches the application’s own endpoints only', async () => {
    const a = bearer(sA.token);
    const r = await expect(send('POST', `/v1/events/${F.evA}/replay`, a, {}), 202);
    assert.equal(r.json().queued, 2);
    const one = await expect(send('POST', `/v1/events/${F.evA}/replay`, a, { endpointId: F.epA }), 202);
    assert.equal(one.json().queued, 1);
    const deliveries = (await asAcme('GET', `/v1/events/${F.evA}/deliveries?limit=100`)).json().data;
    for (const d of deliveries) assert.ok([F.epA, F.epA2].includes(d.endpointId), d.endpointId);
  });

  test('a session’s Idempotency-Keys are its application’s: never a replay of the tenant’s answer', async () => {
    const key = newKey();
    const body = { url: 'http://127.0.0.1:9/k', eventTypes: ['*'] };
    const tenant = await expect(
      asAcme('POST', '/v1/webhook-endpoints', body, { 'idempotency-key': key }),
      201,
    );
    const customer = await expect(
      send('POST', '/v1/webhook-endpoints', { ...bearer(sA.token), 'idempotency-key': key }, body),
      201,
    );
    assert.equal(customer.headers['idempotent-replayed'], undefined);
    assert.notEqual(customer.json().id, tenant.json().id);
    assert.notEqual(customer.json().secret, tenant.json().secret);
    for (const id of [tenant.json().id, customer.json().id])
      await expect(asAcme('DELETE', `/v1/webhook-endpoints/${id}`), 204);
  });

  test('a read-only session reads, and every write answers 403 portal_read_only with nothing changed', async () => {
    const ro = bearer(sAro.token);
    await expect(send('GET', '/v1/webhook-endpoints', ro), 200);
    await expect(send('GET', `/v1/webhook-endpoints/${F.epA}`, ro), 200);
    await expect(send('GET', `/v1/events/${F.evA}/deliveries`, ro), 200);
    await expect(send('GET', `/v1/deliveries/${F.dlvA}/attempts`, ro), 200);
    const before = (await asAcme('GET', `/v1/webhook-endpoints/${F.epA}`)).body;
    const writes: [string, string, unknown?][] = [
      ['POST', '/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/ro', eventTypes: ['*'] }],
      ['PATCH', `/v1/webhook-endpoints/${F.epA}`, { description: 'ro' }],
      ['DELETE', `/v1/webhook-endpoints/${F.epA}`],
      ['POST', `/v1/webhook-endpoints/${F.epA}/rotate-secret`, {}],
      ['POST', `/v1/webhook-endpoints/${F.epA}/enable`],
      ['POST', `/v1/webhook-endpoints/${F.epA}/disable`, {}],
      ['POST', `/v1/webhook-endpoints/${F.epA}/test`],
      ['POST', `/v1/webhook-endpoints/${F.epA}/recover`, { since: '2000-01-01T00:00:00Z' }],
      ['POST', `/v1/events/${F.evA}/replay`, {}],
    ];
    const deliveries = await t.count('webhook_deliveries');
    for (const [method, url, body] of writes) {
      problem(await send(method, url, { ...ro, 'if-match': '*' }, body), 403, 'portal_read_only');
    }
    assert.equal((await asAcme('GET', `/v1/webhook-endpoints/${F.epA}`)).body, before);
    assert.equal(await t.count('webhook_deliveries'), deliveries);
  });

  test('every route that does not take a portal token answers 403 portal_forbidden, as documented', async () => {
    const doc = t.app.swagger() as unknown as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    let forbidden = 0;
    let scoped = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const codes = JSON.stringify(op.responses);
        const url = path.replace(/\{\w+\}/g, 'x_1');
        const r = await send(
          method.toUpperCase(),
          url,
          { ...bearer(sA.token), 'idempotency-key': newKey() },
          method === 'get' || method === 'delete' ? undefined : {},
        );
        if (codes.includes('portal_forbidden')) {
          problem(r, 403, 'portal_forbidden');
          forbidden++;
        } else {
          assert.ok(codes.includes('portal_session_expired'), `${method} ${path} documents neither`);
          assert.notEqual(r.json().code, 'portal_forbidden', `${method} ${path}`);
          scoped++;
        }
      }
    }
    assert.ok(forbidden >= 14, `forbidden on ${forbidden} routes`);
    assert.equal(
      scoped,
      22,
      'the endpoint, poll, event, delivery and attempt routes, and the session itself',
    );
    // docs/portal.md's table lists exactly these routes (issue 30: GET /v1/event-types/{name} was missing).
    const documented = documentedPortalRoutes(
      readFileSync(new URL('../../../docs/portal.md', import.meta.url), 'utf8'),
    );
    const taken = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => !JSON.stringify(op.responses).includes('portal_forbidden'))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    assert.deepEqual([...documented].sort(), taken.sort());
  });

  test('GET /v1/portal-session: what the page shows of its own session, never the token', async () => {
    const r = await expect(send('GET', '/v1/portal-session', bearer(sAro.token)), 200);
    assert.deepEqual(r.json(), {
      object: 'portal_session',
      id: sAro.id,
      applicationId: F.appA,
      applicationName: 'A',
      readOnly: true,
      expiresAt: sAro.expiresAt,
      createdAt: r.json().createdAt,
    });
    assert.ok(!r.body.includes(sAro.token));
    problem(await asAcme('GET', '/v1/portal-session'), 404, 'not_found');
  });

  test('malformed or forged tokens are 401 unauthorized, as an unknown API key is', async () => {
    const forged = `${sA.id}.${'A'.repeat(43)}`;
    for (const token of [
      forged,
      `${sA.token}x`,
      'ps_',
      `ps_${'0'.repeat(22)}.${'A'.repeat(43)}`,
      sA.token.toLowerCase(),
    ]) {
      const r = problem(await send('GET', '/v1/webhook-endpoints', bearer(token)), 401, 'unauthorized');
      assert.ok(!JSON.stringify(r).includes(sA.token.split('.')[1]!));
    }
  });

  test('revoked: 401 portal_session_revoked from the next request on; revoking again is 204', async () => {
    const s = await openSession(F.appA);
    await expect(send('GET', '/v1/webhook-endpoints', bearer(s.token)), 200);
    await expect(asAcme('DELETE', `/v1/portal-sessions/${s.id}`), 204);
    const r = await send('GET', '/v1/webhook-endpoints', bearer(s.token));
    problem(r, 401, 'portal_session_revoked');
    assert.equal(r.headers['www-authenticate'], 'Bearer realm="surety"');
    await expect(asAcme('DELETE', `/v1/portal-sessions/${s.id}`), 204);
    problem(await send('DELETE', `/v1/portal-sessions/${s.id}`, auth('globex')), 404, 'not_found');
    problem(await asAcme('DELETE', `/v1/portal-sessions/ps_${'0'.repeat(22)}`), 404, 'not_found');
    problem(await asAcme('DELETE', '/v1/portal-sessions/not-a-session'), 400, 'validation_failed');
    // A portal token ends its own session (read-only or not), and no other.
    const own = await openSession(F.appA, { readOnly: true });
    const other = await openSession(F.appA);
    problem(await send('DELETE', `/v1/portal-sessions/${other.id}`, bearer(own.token)), 404, 'not_found');
    await expect(send('DELETE', `/v1/portal-sessions/${own.id}`, bearer(own.token)), 204);
    problem(await send('GET', '/v1/portal-session', bearer(own.token)), 401, 'portal_session_revoked');
    await expect(send('GET', '/v1/portal-session', bearer(other.token)), 200);
  });

  test('deleting the application revokes its sessions: 401 portal_session_revoked, its events unread', async () => {
    const gone = await createApplication('acme', 'Leaving customer', 'leaving');
    const s = await openSession(gone);
    await expect(send('GET', '/v1/events', bearer(s.token)), 200);
    await expect(asAcme('DELETE', `/v1/applications/${gone}`), 204);
    problem(await send('GET', '/v1/events', bearer(s.token)), 401, 'portal_session_revoked');
    problem(await send('GET', '/v1/portal-session', bearer(s.token)), 401, 'portal_session_revoked');
  });

  test('expired: 401 portal_session_expired once the clock passes expiresAt', async () => {
    const s = await openSession(F.appA, { expiresInSeconds: 60 });
    await expect(send('GET', '/v1/webhook-endpoints', bearer(s.token)), 200);
    const now = t.clock.now;
    try {
      t.clock.now = Date.parse(s.expiresAt) - 1;
      await expect(send('GET', '/v1/webhook-endpoints', bearer(s.token)), 200);
      t.clock.now = Date.parse(s.expiresAt);
      const r = await send('GET', '/v1/webhook-endpoints', bearer(s.token));
      problem(r, 401, 'portal_session_expired');
      assert.equal(r.headers['www-authenticate'], 'Bearer realm="surety"');
      // An expired session on a route that never took it is still forbidden, not expired.
      problem(await send('GET', '/v1/payments', bearer(s.token)), 403, 'portal_forbidden');
    } finally {
      t.clock.now = now;
    }
  });

  test('the token never reaches a log line, at trace level', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const app = await buildApp({
      sql: t.db.sql,
      config: {
        apiKeys: parseApiKeys(API_KEYS),
        bodyLimit: 65_536,
        idempotencyTtlMs: 60_000,
        schema: t.db.schema,
      },
      webhooks: t.app.webhooks,
      logger: { level: 'trace', redact: LOG_REDACT, stream },
    });
    try {
      const opened = await app.inject({
        method: 'POST',
        url: `/v1/applications/${F.appA}/portal-sessions`,
        headers: { ...auth('acme'), 'content-type': 'application/json' },
        payload: '{}',
      });
      const s = opened.json() as Session;
      for (const url of ['/v1/webhook-endpoints', '/v1/payments', `/portal/${s.id}`, '/v1/nowhere']) {
        await app.inject({ method: 'GET', url, headers: bearer(s.token) });
      }
      await app.inject({ method: 'GET', url: '/v1/webhook-endpoints', headers: bearer(`${s.token}x`) });
      const log = lines.join('');
      assert.ok(log.includes(`/portal/${s.id}`), 'requests are logged');
      assert.ok(!log.includes(s.token.split('.')[1]!), 'the secret is in no log line');
    } finally {
      await app.close();
    }
  });
});

describe('GET and PUT /v1/portal-settings', () => {
  test('none until set; PUT normalises, answers an ETag, and honours If-Match', async () => {
    const first = await expect(send('GET', '/v1/portal-settings', auth('globex')), 200);
    assert.deepEqual(first.json(), { object: 'portal_settings', frameAncestors: [], updatedAt: null });
    const etag = String(first.headers.etag);
    await expect(send('GET', '/v1/portal-settings', { ...auth('globex'), 'if-none-match': etag }), 304);
    const put = await expect(
      send(
        'PUT',
        '/v1/portal-settings',
        { ...auth('globex'), 'if-match': etag },
        {
          frameAncestors: [
            'HTTPS://Shop.Globex.example:443',
            'http://localhost:5173',
            'https://*.globex.example',
          ],
        },
      ),
      200,
    );
    assert.deepEqual(put.json().frameAncestors, [
      'https://shop.globex.example',
      'http://localhost:5173',
      'https://*.globex.example',
    ]);
    assert.notEqual(put.headers.etag, etag);
    problem(
      await send(
        'PUT',
        '/v1/portal-settings',
        { ...auth('globex'), 'if-match': etag },
        { frameAncestors: [] },
      ),
      412,
      'precondition_failed',
    );
    const read = await expect(send('GET', '/v1/portal-settings', auth('globex')), 200);
    assert.equal(read.headers.etag, put.headers.etag);
    assert.equal(read.json().frameAncestors.length, 3);
    // Replacing settings that exist needs If-Match, like every other update (428 without it).
    problem(
      await send('PUT', '/v1/portal-settings', auth('globex'), {
        frameAncestors: ['https://globex.example'],
      }),
      428,
      'precondition_required',
    );
    assert.equal((await send('GET', '/v1/portal-settings', auth('globex'))).json().frameAncestors.length, 3);
  });

  test("every write needs If-Match, the first one too: the GET's ETag or *", async () => {
    problem(
      await send('PUT', '/v1/portal-settings', auth('acme'), { frameAncestors: ['https://acme.example'] }),
      428,
      'precondition_required',
    );
    assert.deepEqual((await send('GET', '/v1/portal-settings', auth('acme'))).json().frameAncestors, []);
    await expect(
      send(
        'PUT',
        '/v1/portal-settings',
        { ...auth('acme'), 'if-match': '*' },
        { frameAncestors: ['https://acme.example'] },
      ),
      200,
    );
  });

  test('each bad origin is named; too many is 400; nothing is stored', async () => {
    const before = (await asAcme('GET', '/v1/portal-settings')).body;
    const bad = await asAcme('PUT', '/v1/portal-settings', {
      frameAncestors: [
        'https://ok.example',
        'http://shop.example',
        '*',
        "https://a.example; script-src 'unsafe-inline'",
      ],
    });
    const body = problem(bad, 400, 'invalid_frame_ancestor') as unknown as { errors: { path: string }[] };
    assert.deepEqual(
      body.errors.map((e) => e.path),
      ['/frameAncestors/1', '/frameAncestors/2', '/frameAncestors/3'],
    );
    const many = Array.from({ length: 11 }, (_, i) => `https://s${i}.example`);
    problem(await asAcme('PUT', '/v1/portal-settings', { frameAncestors: many }), 400, 'validation_failed');
    problem(
      await asAcme('PUT', '/v1/portal-settings', { frameAncestors: 'https://a.example' }),
      400,
      'validation_failed',
    );
    problem(await asAcme('PUT', '/v1/portal-settings', {}), 400, 'validation_failed');
    assert.equal((await asAcme('GET', '/v1/portal-settings')).body, before);
  });

  test('a portal token can neither read nor change them', async () => {
    problem(await send('GET', '/v1/portal-settings', bearer(sA.token)), 403, 'portal_forbidden');
    problem(
      await send('PUT', '/v1/portal-settings', bearer(sA.token), { frameAncestors: [] }),
      403,
      'portal_forbidden',
    );
  });
});

describe('the portal page', () => {
  const csp = (frameAncestors: string) =>
    [...PORTAL_CSP_BASE, `frame-ancestors ${frameAncestors}`].join('; ');

  test("served per session with its tenant's frame-ancestors, no-referrer, never cached", async () => {
    const { etag } = (await asAcme('GET', '/v1/portal-settings')).headers;
    await expect(
      asAcme(
        'PUT',
        '/v1/portal-settings',
        { frameAncestors: ['https://app.acme.example', 'http://127.0.0.1:4000'] },
        { 'if-match': String(etag) },
      ),
      200,
    );
    const page = await expect(t.app.inject({ url: `/portal/${sA.id}` }), 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.equal(
      page.headers['content-security-policy'],
      csp('https://app.acme.example http://127.0.0.1:4000'),
    );
    assert.equal(page.headers['referrer-policy'], 'no-referrer');
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
    assert.equal(page.headers['x-frame-options'], undefined);
    // The page holds no data: the same bytes for every session.
    assert.equal(page.body, (await t.app.inject({ url: `/portal/${sB.id}` })).body);
    assert.doesNotMatch(page.body, /ps_/);
  });

  test("another tenant's session gets that tenant's list; no session, or an unknown one, 'none'", async () => {
    const g = await expect(
      send('POST', `/v1/applications/${F.globexApp}/portal-sessions`, auth('globex'), {}),
      201,
    );
    const globexSettings = (await send('GET', '/v1/portal-settings', auth('globex'))).json().frameAncestors;
    const gPage = await t.app.inject({ url: `/portal/${g.json().id}` });
    assert.equal(
      gPage.headers['content-security-policy'],
      csp(globexSettings.length ? globexSettings.join(' ') : "'none'"),
    );
    for (const url of [
      '/portal',
      `/portal/ps_${'0'.repeat(22)}`,
      '/portal/not-a-session',
      '/portal/%3Cscript%3E',
    ]) {
      const r = await expect(t.app.inject({ url }), 200);
      assert.equal(r.headers['content-security-policy'], csp("'none'"), url);
      assert.equal(r.headers['x-frame-options'], 'DENY', url);
      assert.equal(r.headers['referrer-policy'], 'no-referrer', url);
    }
  });

  test('an expired or revoked session keeps its tenant’s list (the "expired" page shows in the frame)', async () => {
    const s = await openSession(F.appA);
    await expect(asAcme('DELETE', `/v1/portal-sessions/${s.id}`), 204);
    const r = await t.app.inject({ url: `/portal/${s.id}` });
    assert.match(
      String(r.headers['content-security-policy']),
      /frame-ancestors https:\/\/app\.acme\.example/,
    );
  });

  test('the policy forbids everything the page does not need', () => {
    const policy = csp("'none'");
    for (const directive of [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "connect-src 'self'",
      "img-src 'self' data:",
      "base-uri 'none'",
      "form-action 'none'",
    ]) {
      assert.ok(policy.includes(directive), directive);
    }
    assert.doesNotMatch(policy, /unsafe-inline|unsafe-eval|\*/);
  });
});

test('the session id is not enough: a token with a session id but no secret is 401', async () => {
  problem(await send('GET', '/v1/webhook-endpoints', bearer(sA.id)), 401, 'unauthorized');
});
