// Tenant isolation, route by route: tenant B (globex) uses tenant A's (acme) ids, ETags,
// Idempotency-Keys and cursors on every route of the service, and must get a 404, a precondition
// failure, or an operation of its own; never A's data, never a change to A's data. The routes are
// read from Fastify's router (printRoutes), so a route added later fails this test until it has a
// row in CASES.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { serviceRegistry } from '../../src/service-events.js';
import { auth, createTestApp, type TestApp } from '../helpers.js';

let t: TestApp;
const sample = (type: string) =>
  structuredClone(serviceRegistry().get(type)!.sample) as Record<string, unknown>;

type Tenant = 'acme' | 'globex';
const call = (
  tenant: Tenant,
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
) =>
  t.app.inject({
    method: method as 'GET',
    url,
    headers: {
      ...auth(tenant),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

/** A's receiver password (stored, never returned to anyone). */
const A_AUTH_PASSWORD = 'acme-receiver-password-SECRET';
/** What A created: ids, ETags, keys, cursors, and the secret B must never see. */
const A = {
  pollEndpoint: '',
  pollCursor: '',
  payment: '',
  paymentKey: 'iso-shared-payment-key',
  paymentsCursor: '',
  order: 'ord_isolation',
  orderEtag: '',
  sku: 'SKU-ISO',
  skuEtag: '',
  reservationKey: 'iso-shared-reservation-key',
  endpoint: '',
  endpointKey: 'iso-shared-endpoint-key',
  endpointsCursor: '',
  secret: '',
  event: '',
  eventKey: 'iso-shared-event-key',
  eventsCursor: '',
  delivery: '',
  deliveriesCursor: '',
  application: '',
  applicationUid: 'iso-app',
  applicationKey: 'iso-shared-application-key',
  applicationEtag: '',
  applicationsCursor: '',
  portalApplication: '',
  portalSession: '',
  portalToken: '',
  portalSettingsEtag: '',
  eventType: 'iso.acme_only',
  eventTypeEtag: '',
  eventTypeKey: 'iso-shared-event-type-key',
  eventTypesCursor: '',
};
const EVENT_TYPE_BODY = {
  name: A.eventType,
  description: 'Only in acme: iso-acme-marker.',
  schema: { type: 'object', properties: { n: { type: 'integer' } } },
  examples: [{ n: 1 }],
};
const PAYMENT_BODY = { amount: '4200', currency: 'USD', customerId: 'cus_iso' };
const ORDER_BODY = { customerId: 'cus_iso', items: [{ sku: 'SKU-ISO', quantity: 1 }] };

async function ok(res: Promise<LightMyRequestResponse>, status: number) {
  const r = await res;
  assert.equal(r.statusCode, status, r.body);
  return r;
}

before(async () => {
  t = await createTestApp();
  const p = await ok(
    call('acme', 'POST', '/v1/payments', PAYMENT_BODY, { 'idempotency-key': A.paymentKey }),
    201,
  );
  A.payment = p.json().id;
  await ok(call('acme', 'POST', '/v1/payments', PAYMENT_BODY, { 'idempotency-key': 'iso-2' }), 201);
  A.paymentsCursor = (await ok(call('acme', 'GET', '/v1/payments?limit=1'), 200)).json().nextCursor;
  A.orderEtag = String(
    (await ok(call('acme', 'PUT', `/v1/orders/${A.order}`, ORDER_BODY), 201)).headers.etag,
  );
  A.skuEtag = String(
    (await ok(call('acme', 'PUT', `/v1/inventory/${A.sku}`, { quantity: 10 }), 201)).headers.etag,
  );
  await ok(
    call(
      'acme',
      'POST',
      `/v1/inventory/${A.sku}/reservations`,
      { quantity: 1 },
      { 'idempotency-key': A.reservationKey },
    ),
    201,
  );
  A.skuEtag = String((await ok(call('acme', 'GET', `/v1/inventory/${A.sku}`), 200)).headers.etag);
  const e = await ok(
    call(
      'acme',
      'POST',
      '/v1/webhook-endpoints',
      // A filter every event passes: A's deliveries below still happen, and the filter is in A's snapshot.
      // Receiver auth too (issue 37): its password is one of the secrets B must never see.
      {
        url: 'http://127.0.0.1:9/hook',
        eventTypes: ['*'],
        filter: { type: { $exists: true } },
        auth: { type: 'basic', username: 'acme-receiver', password: A_AUTH_PASSWORD },
      },
      {
        'idempotency-key': A.endpointKey,
      },
    ),
    201,
  );
  A.endpoint = e.json().id;
  A.secret = e.json().secret;
  await ok(
    call('acme', 'POST', '/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/two', eventTypes: ['*'] }),
    201,
  );
  A.endpointsCursor = (await ok(call('acme', 'GET', '/v1/webhook-endpoints?limit=1'), 200)).json().nextCursor;
  const poll = await ok(
    call('acme', 'POST', '/v1/webhook-endpoints', { kind: 'poll', eventTypes: ['*'] }),
    201,
  );
  A.pollEndpoint = poll.json().id;
  A.pollCursor = (
    await ok(call('acme', 'GET', `/v1/webhook-endpoints/${A.pollEndpoint}/poll`), 200)
  ).json().cursor;
  const ev = await ok(
    call(
      'acme',
      'POST',
      '/v1/events',
      { type: 'payment.created', data: sample('payment.created') },
      {
        'idempotency-key': A.eventKey,
      },
    ),
    201,
  );
  A.event = ev.json().id;
  await ok(
    call(
      'acme',
      'POST',
      '/v1/events',
      { type: 'payment.created', data: sample('payment.created') },
      { 'idempotency-key': 'iso-event-2' },
    ),
    201,
  );
  A.eventsCursor = (await ok(call('acme', 'GET', '/v1/events?limit=1'), 200)).json().nextCursor;
  const deliveries = (
    await ok(call('acme', 'GET', `/v1/webhook-endpoints/${A.endpoint}/deliveries?limit=1`), 200)
  ).json();
  A.delivery = deliveries.data[0].id;
  A.deliveriesCursor = deliveries.nextCursor;
  const app = await ok(
    call(
      'acme',
      'POST',
      '/v1/applications',
      { uid: A.applicationUid, name: 'Iso' },
      { 'idempotency-key': A.applicationKey },
    ),
    201,
  );
  A.application = app.json().id;
  A.applicationEtag = String(app.headers.etag);
  await ok(call('acme', 'POST', '/v1/applications', { name: 'Iso two' }), 201);
  A.applicationsCursor = (await ok(call('acme', 'GET', '/v1/applications?limit=1'), 200)).json().nextCursor;
  await ok(
    call('acme', 'POST', '/v1/webhook-endpoints', {
      url: 'http://127.0.0.1:9/app',
      eventTypes: ['*'],
      applicationId: A.application,
    }),
    201,
  );
  A.portalApplication = (
    await t.app.webhooks.createApplication(t.db.sql, {
      tenant: 'acme',
      name: 'Portal customer',
      uid: 'iso-portal',
    })
  ).id;
  const session = await ok(
    call('acme', 'POST', `/v1/applications/${A.portalApplication}/portal-sessions`, {}),
    201,
  );
  A.portalSession = session.json().id;
  A.portalToken = session.json().token;
  A.portalSettingsEtag = String(
    (
      await ok(
        call(
          'acme',
          'PUT',
          '/v1/portal-settings',
          { frameAncestors: ['https://acme.example'] },
          { 'if-match': '*' },
        ),
        200,
      )
    ).headers.etag,
  );
  const et = await ok(
    call('acme', 'POST', '/v1/event-types', EVENT_TYPE_BODY, { 'idempotency-key': A.eventTypeKey }),
    201,
  );
  A.eventTypeEtag = String(et.headers.etag);
  await ok(call('acme', 'POST', '/v1/event-types', { ...EVENT_TYPE_BODY, name: 'iso.acme_two' }), 201);
  A.eventTypesCursor = (await ok(call('acme', 'GET', '/v1/event-types?limit=1'), 200)).json().nextCursor;
  for (const [k, v] of Object.entries(A)) assert.ok(v, `setup produced ${k}`);
});
after(() => t.close());

/** A's resources as A sees them: must be identical before and after B's attempts. */
async function snapshotA() {
  const get = async (url: string) => (await call('acme', 'GET', url)).body;
  return {
    payment: await get(`/v1/payments/${A.payment}`),
    payments: await get('/v1/payments?limit=100'),
    order: await get(`/v1/orders/${A.order}`),
    sku: await get(`/v1/inventory/${A.sku}`),
    endpoint: await get(`/v1/webhook-endpoints/${A.endpoint}`),
    endpoints: await get('/v1/webhook-endpoints?limit=100'),
    event: await get(`/v1/events/${A.event}`),
    events: await get('/v1/events?limit=100'),
    deliveries: await get(`/v1/events/${A.event}/deliveries`),
    attempts: await get(`/v1/deliveries/${A.delivery}/attempts`),
    application: await get(`/v1/applications/${A.application}`),
    applications: await get('/v1/applications?limit=100'),
    applicationEndpoints: await get(`/v1/webhook-endpoints?applicationId=${A.application}`),
    portalSettings: await get('/v1/portal-settings'),
    // A's portal session still works (B cannot revoke it).
    portalSession: (
      await t.app.inject({
        url: '/v1/webhook-endpoints',
        headers: { authorization: `Bearer ${A.portalToken}` },
      })
    ).statusCode,
    eventType: await get(`/v1/event-types/${A.eventType}`),
    eventTypes: await get('/v1/event-types?limit=100'),
    contract: await get('/v1/asyncapi.json'),
  };
}

type Check = () => Promise<void>;
const notFound =
  (method: string, url: () => string, body?: () => unknown, headers?: () => Record<string, string>): Check =>
  async () => {
    const r = await call('globex', method, url(), body?.(), headers?.());
    assert.equal(r.statusCode, 404, `${method} ${url()}: ${r.body}`);
    assert.equal(r.json().code, 'not_found');
  };
/** A list read with A's cursor: B's own (empty) page, nothing of A's. */
const listWithCursor =
  (url: () => string): Check =>
  async () => {
    const r = await call('globex', 'GET', url());
    assert.ok(r.statusCode === 200 || r.statusCode === 400, `${url()}: ${r.statusCode} ${r.body}`);
    if (r.statusCode === 200) assert.deepEqual(r.json().data, [], `${url()} showed data to another tenant`);
  };

/** One row per route of the service: what B gets when it uses A's identifiers there. */
const CASES: Record<string, Check> = {
  'POST /v1/payments': async () => {
    // The same Idempotency-Key in another tenant is another operation: a new payment, not A's replay.
    const r = await call('globex', 'POST', '/v1/payments', PAYMENT_BODY, { 'idempotency-key': A.paymentKey });
    assert.equal(r.statusCode, 201, r.body);
    assert.equal(r.headers['idempotent-replayed'], undefined);
    assert.notEqual(r.json().id, A.payment);
  },
  'GET /v1/payments': listWithCursor(() => `/v1/payments?cursor=${A.paymentsCursor}&customerId=cus_iso`),
  'GET /v1/payments/{id}': notFound('GET', () => `/v1/payments/${A.payment}`),
  'GET /v1/payments/{id}/steps': notFound('GET', () => `/v1/payments/${A.payment}/steps`),
  'PUT /v1/orders/{id}': async () => {
    // With A's ETag: B has no such order, so the precondition fails; nothing is created or changed.
    const r = await call(
      'globex',
      'PUT',
      `/v1/orders/${A.order}`,
      { ...ORDER_BODY, customerId: 'cus_b' },
      {
        'if-match': A.orderEtag,
      },
    );
    assert.equal(r.statusCode, 412, r.body);
    // Without: ids are client-chosen per tenant, so B creates its own order under the same id.
    const own = await call('globex', 'PUT', `/v1/orders/${A.order}`, { ...ORDER_BODY, customerId: 'cus_b' });
    assert.equal(own.statusCode, 201, own.body);
    assert.equal(own.json().customerId, 'cus_b');
  },
  'GET /v1/orders/{id}': async () => {
    // B now has its own order of that id (from the PUT row): it must see its own, never A's.
    const r = await call('globex', 'GET', `/v1/orders/${A.order}`);
    if (r.statusCode === 200) assert.equal(r.json().customerId, 'cus_b');
    else assert.equal(r.statusCode, 404);
  },
  'PATCH /v1/orders/{id}': notFound(
    'PATCH',
    () => '/v1/orders/ord_only_in_acme',
    () => ({ shippingAddress: 'x' }),
    () => ({ 'if-match': A.orderEtag, 'content-type': 'application/merge-patch+json' }),
  ),
  'POST /v1/orders/{id}/ship': notFound(
    'POST',
    () => '/v1/orders/ord_only_in_acme/ship',
    undefined,
    () => ({ 'if-match': A.orderEtag, 'idempotency-key': 'iso-ship' }),
  ),
  'PUT /v1/inventory/{sku}': async () => {
    const r = await call(
      'globex',
      'PUT',
      `/v1/inventory/${A.sku}`,
      { quantity: 0 },
      { 'if-match': A.skuEtag },
    );
    assert.equal(r.statusCode, 412, r.body);
  },
  'GET /v1/inventory/{sku}': notFound('GET', () => `/v1/inventory/${A.sku}`),
  'POST /v1/inventory/{sku}/reservations': notFound(
    'POST',
    () => `/v1/inventory/${A.sku}/reservations`,
    () => ({ quantity: 1 }),
    () => ({ 'idempotency-key': A.reservationKey }),
  ),
  'POST /v1/webhook-endpoints': async () => {
    const r = await call(
      'globex',
      'POST',
      '/v1/webhook-endpoints',
      { url: 'http://127.0.0.1:9/hook', eventTypes: ['*'] },
      {
        'idempotency-key': A.endpointKey,
      },
    );
    assert.equal(r.statusCode, 201, r.body);
    assert.notEqual(r.json().id, A.endpoint);
    assert.notEqual(r.json().secret, A.secret);
    // A's application, by id or uid, is no application of B's.
    for (const applicationId of [A.application, A.applicationUid]) {
      const app = await call('globex', 'POST', '/v1/webhook-endpoints', {
        url: 'http://127.0.0.1:9/hook',
        eventTypes: ['*'],
        applicationId,
      });
      assert.equal(app.statusCode, 422, app.body);
      assert.equal(app.json().code, 'unknown_application');
    }
  },
  'GET /v1/webhook-endpoints': async () => {
    const r = await call('globex', 'GET', `/v1/webhook-endpoints?cursor=${A.endpointsCursor}`);
    assert.ok(r.statusCode === 200 || r.statusCode === 400, r.body);
    if (r.statusCode === 200) for (const e of r.json().data) assert.notEqual(e.id, A.endpoint);
  },
  'GET /v1/webhook-endpoints/{id}': notFound('GET', () => `/v1/webhook-endpoints/${A.endpoint}`),
  'PATCH /v1/webhook-endpoints/{id}': notFound(
    'PATCH',
    () => `/v1/webhook-endpoints/${A.endpoint}`,
    () => ({ url: 'http://127.0.0.1:9/stolen', filter: { 'data.never': true } }),
    () => ({ 'if-match': '*' }),
  ),
  'DELETE /v1/webhook-endpoints/{id}': notFound('DELETE', () => `/v1/webhook-endpoints/${A.endpoint}`),
  'POST /v1/webhook-endpoints/{id}/rotate-secret': notFound(
    'POST',
    () => `/v1/webhook-endpoints/${A.endpoint}/rotate-secret`,
    () => ({ overlapSeconds: 0 }),
  ),
  'POST /v1/webhook-endpoints/{id}/enable': notFound(
    'POST',
    () => `/v1/webhook-endpoints/${A.endpoint}/enable`,
  ),
  'POST /v1/webhook-endpoints/{id}/disable': notFound(
    'POST',
    () => `/v1/webhook-endpoints/${A.endpoint}/disable`,
    () => ({ reason: 'stolen' }),
  ),
  'POST /v1/webhook-endpoints/{id}/test': notFound('POST', () => `/v1/webhook-endpoints/${A.endpoint}/test`),
  'POST /v1/webhook-endpoints/{id}/recover': notFound(
    'POST',
    () => `/v1/webhook-endpoints/${A.endpoint}/recover`,
    () => ({ since: '2000-01-01T00:00:00Z' }),
  ),
  'GET /v1/webhook-endpoints/{id}/deliveries': notFound(
    'GET',
    () => `/v1/webhook-endpoints/${A.endpoint}/deliveries?cursor=${A.deliveriesCursor ?? ''}`,
  ),
  'GET /v1/deliveries/{id}/attempts': notFound('GET', () => `/v1/deliveries/${A.delivery}/attempts`),
  'GET /v1/webhook-endpoints/{id}/poll': notFound(
    'GET',
    () => `/v1/webhook-endpoints/${A.pollEndpoint}/poll`,
  ),
  'POST /v1/webhook-endpoints/{id}/poll/ack': notFound(
    'POST',
    () => `/v1/webhook-endpoints/${A.pollEndpoint}/poll/ack`,
    () => ({ cursor: A.pollCursor }),
  ),
  'POST /v1/events': async () => {
    const r = await call(
      'globex',
      'POST',
      '/v1/events',
      { type: 'payment.created', data: sample('payment.created') },
      {
        'idempotency-key': A.eventKey,
      },
    );
    assert.equal(r.statusCode, 201, r.body);
    assert.notEqual(r.json().id, A.event);
    assert.equal(r.headers['idempotent-replayed'], undefined);
    const toA = await call(
      'globex',
      'POST',
      '/v1/events',
      { type: 'payment.created', data: sample('payment.created'), application: A.application },
      { 'idempotency-key': 'iso-event-to-a' },
    );
    assert.equal(toA.statusCode, 422, toA.body);
    assert.equal(toA.json().code, 'unknown_application');
  },
  'POST /v1/applications': async () => {
    // The same key and the same uid in another tenant: B's own application, not A's replay.
    const r = await call(
      'globex',
      'POST',
      '/v1/applications',
      { uid: A.applicationUid, name: 'Iso' },
      { 'idempotency-key': A.applicationKey },
    );
    assert.equal(r.statusCode, 201, r.body);
    assert.equal(r.headers['idempotent-replayed'], undefined);
    assert.notEqual(r.json().id, A.application);
  },
  'GET /v1/applications': listWithCursor(() => `/v1/applications?cursor=${A.applicationsCursor}`),
  'GET /v1/applications/{id}': async () => {
    await notFound('GET', () => `/v1/applications/${A.application}`)();
    // B now has an application with A's uid (the POST row): it sees its own, never A's.
    const r = await call('globex', 'GET', `/v1/applications/${A.applicationUid}`);
    assert.equal(r.statusCode, 200, r.body);
    assert.notEqual(r.json().id, A.application);
  },
  'PATCH /v1/applications/{id}': notFound(
    'PATCH',
    () => `/v1/applications/${A.application}`,
    () => ({ name: 'stolen' }),
    () => ({ 'if-match': A.applicationEtag }),
  ),
  'DELETE /v1/applications/{id}': notFound('DELETE', () => `/v1/applications/${A.application}`),
  'GET /v1/events': async () => {
    const r = await call('globex', 'GET', `/v1/events?cursor=${A.eventsCursor}`);
    assert.ok(r.statusCode === 200 || r.statusCode === 400, r.body);
    if (r.statusCode === 200) for (const e of r.json().data) assert.notEqual(e.id, A.event);
  },
  'GET /v1/events/{id}': notFound('GET', () => `/v1/events/${A.event}`),
  'GET /v1/events/{id}/deliveries': notFound('GET', () => `/v1/events/${A.event}/deliveries`),
  'POST /v1/events/{id}/replay': notFound(
    'POST',
    () => `/v1/events/${A.event}/replay`,
    () => ({}),
  ),
  'POST /v1/applications/{id}/portal-sessions': notFound(
    'POST',
    () => `/v1/applications/${A.portalApplication}/portal-sessions`,
    () => ({}),
  ),
  'DELETE /v1/portal-sessions/{id}': notFound('DELETE', () => `/v1/portal-sessions/${A.portalSession}`),
  // An API key has no session of its own: never A's.
  'GET /v1/portal-session': notFound('GET', () => '/v1/portal-session'),
  'GET /v1/portal-settings': async () => {
    const r = await call('globex', 'GET', '/v1/portal-settings');
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json().frameAncestors, []);
  },
  'PUT /v1/portal-settings': async () => {
    // With A's ETag: B's settings are at another version, so the precondition fails.
    const r = await call(
      'globex',
      'PUT',
      '/v1/portal-settings',
      { frameAncestors: [] },
      {
        'if-match': A.portalSettingsEtag,
      },
    );
    assert.equal(r.statusCode, 412, r.body);
  },
  'POST /v1/event-types': async () => {
    // Names are per tenant: B registers its own type of the same name, with A's key: not A's replay.
    const r = await call(
      'globex',
      'POST',
      '/v1/event-types',
      { ...EVENT_TYPE_BODY, description: 'globex own' },
      { 'idempotency-key': A.eventTypeKey },
    );
    assert.equal(r.statusCode, 201, r.body);
    assert.equal(r.headers['idempotent-replayed'], undefined);
    assert.equal(r.json().description, 'globex own');
  },
  'GET /v1/event-types': async () => {
    const r = await call('globex', 'GET', `/v1/event-types?limit=100&cursor=${A.eventTypesCursor}`);
    assert.ok(r.statusCode === 200 || r.statusCode === 400, r.body);
    assert.ok(!r.body.includes('iso-acme-marker') && !r.body.includes('iso.acme_two'), r.body);
  },
  'GET /v1/event-types/{name}': notFound('GET', () => '/v1/event-types/iso.acme_two'),
  'PATCH /v1/event-types/{name}': notFound(
    'PATCH',
    () => '/v1/event-types/iso.acme_two',
    () => ({ deprecated: true }),
    () => ({ 'if-match': A.eventTypeEtag }),
  ),
  'GET /v1/asyncapi.json': async () => {
    const r = await call('globex', 'GET', '/v1/asyncapi.json');
    assert.equal(r.statusCode, 200);
    assert.ok(!r.body.includes('iso-acme-marker') && !r.body.includes('iso.acme_two'));
  },
};

/** Every route of the router, from printRoutes' tree: "METHOD /path/{param}", HEAD left out. */
function routerRoutes(): string[] {
  const tree = t.app.printRoutes({ commonPrefix: false });
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│ ]*)[├└]── (\S+) \(([A-Z, ]+)\)/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    stack.push(m[2]!);
    const path = stack.join('').replace(/:(\w+)/g, '{$1}');
    for (const method of m[3]!.split(', ')) if (method !== 'HEAD') routes.push(`${method} ${path}`);
  }
  return routes;
}

/** Routes that answer without an API key and hold no tenant data. */
// The dashboard and the files of apps/server/ui/ (under /ui/) are static HTML, JS and CSS: the data
// they show comes from the /v1 routes, checked below. The portal page is the same static HTML for
// every session (its data comes from the /v1 routes too).
const PUBLIC =
  /^GET \/(openapi\.json|docs(\/.*)?|metrics|asyncapi\.(json|yaml)|healthz|readyz|dashboard(\/[\w.-]*)?|ui(\/[\w.-]+)+|portal(\/\{session\})?)$/;

describe('tenant isolation on every route', () => {
  test('every route of the router is either public (no tenant data) or has an isolation case', () => {
    const routes = routerRoutes();
    assert.ok(routes.length > 30, `only ${routes.length} routes parsed from printRoutes`);
    const tenantRoutes = routes.filter((r) => !PUBLIC.test(r));
    assert.deepEqual(
      tenantRoutes.filter((r) => !(r in CASES)),
      [],
      'routes without an isolation case',
    );
    assert.deepEqual(
      Object.keys(CASES).filter((r) => !tenantRoutes.includes(r)),
      [],
      'cases for no route',
    );
    // The OpenAPI document lists the same tenant routes.
    const documented = Object.entries(t.app.swagger().paths ?? {}).flatMap(([path, ops]) =>
      Object.keys(ops as object).map((m) => `${m.toUpperCase()} ${path}`),
    );
    assert.deepEqual(documented.sort(), tenantRoutes.sort());
  });

  test('tenant B with tenant A ids, ETags, keys and cursors: 404, 412 or its own operation; A unchanged', async () => {
    const before = await snapshotA();
    const secretSeen: string[] = [];
    for (const [route, check] of Object.entries(CASES)) {
      await check().catch((e: Error) => {
        throw new Error(`${route}: ${e.message}`);
      });
    }
    // Nothing B ever received names A's secret or A's server-generated ids.
    const bViews = await Promise.all([
      call('globex', 'GET', '/v1/payments?limit=100'),
      call('globex', 'GET', '/v1/webhook-endpoints?limit=100'),
      call('globex', 'GET', '/v1/events?limit=100'),
      call('globex', 'GET', '/v1/applications?limit=100'),
    ]);
    for (const r of bViews) {
      for (const secret of [
        A.secret,
        A.payment,
        A.endpoint,
        A.event,
        A.delivery,
        A.application,
        A_AUTH_PASSWORD,
      ]) {
        if (r.body.includes(secret)) secretSeen.push(secret);
      }
    }
    assert.deepEqual(secretSeen, []);
    assert.deepEqual(await snapshotA(), before, "A's resources are unchanged");
  });
});
