// Surety's own contract (issue 20, part 1): /openapi.json draws no finding from Spectral's
// spectral:oas ruleset, validates with swagger-parser, is generated from what each route declares
// (a route that leaves something out is refused), and says what the service does: every header it
// documents on an answer is sent, and every such header sent is documented.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Document, Spectral } from '@stoplight/spectral-core';
import Parsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import Fastify, { type LightMyRequestResponse } from 'fastify';
import { registerOpenApi } from '../src/openapi.js';
import { auth, createTestApp, newKey, PAYMENT, postPayment, type TestApp } from './helpers.js';

// biome-ignore lint/suspicious/noExplicitAny: the document is walked as untyped JSON
type Json = Record<string, any>;
let t: TestApp;
let doc: Json;
before(async () => {
  t = await createTestApp();
  doc = (await t.app.inject({ url: '/openapi.json' })).json();
});
after(() => t.close());

const operations = () =>
  Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op })),
  );

test('spectral:oas reports no error, warning or hint on /openapi.json', async () => {
  const spectral = new Spectral();
  spectral.setRuleset({ extends: [[oas as never, 'recommended']] } as never);
  const results = await spectral.run(new Document(JSON.stringify(doc), Parsers.Json, '/openapi.json'));
  const findings = results.map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`);
  assert.deepEqual(findings, []);
});

test('swagger-parser validates /openapi.json (internal references only)', async () => {
  const validated = await SwaggerParser.validate(structuredClone(doc) as never, {
    resolve: { external: false },
  });
  assert.ok((validated as Json).paths['/v1/payments']);
});

test('every operation has an operationId, a description, a declared tag, a 2xx; errors are the one Problem', () => {
  const ids = new Set<string>();
  const tags = new Set((doc.tags as Json[]).map((x) => x.name));
  for (const { path, method, op } of operations()) {
    const where = `${method.toUpperCase()} ${path}`;
    assert.match(op.operationId, /^[a-z][A-Za-z0-9]+$/, where);
    assert.ok(!ids.has(op.operationId), `${where}: operationId ${op.operationId} twice`);
    ids.add(op.operationId);
    assert.ok(op.description && op.summary, where);
    assert.ok(op.tags.length > 0 && op.tags.every((x: string) => tags.has(x)), where);
    const statuses = Object.keys(op.responses);
    assert.ok(
      statuses.some((s) => /^2\d\d$/.test(s)),
      `${where} has no 2xx`,
    );
    for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
      if (Number(status) < 400) continue;
      assert.deepEqual(Object.keys(response.content), ['application/problem+json'], `${where} ${status}`);
      const [ref, narrowed] = response.content['application/problem+json'].schema.allOf;
      assert.equal(ref.$ref, '#/components/schemas/Problem', `${where} ${status}`);
      assert.ok(narrowed.properties.code.enum.length > 0, `${where} ${status} lists its codes`);
    }
  }
  const expected: [string, string, string][] = [
    ['/v1/webhook-endpoints/{id}', 'delete', '204'],
    ['/v1/webhook-endpoints/{id}/test', 'post', '202'],
    ['/v1/webhook-endpoints/{id}/recover', 'post', '202'],
    ['/v1/events/{id}/replay', 'post', '202'],
  ];
  for (const [path, method, status] of expected) assert.ok(doc.paths[path][method].responses[status]);
  assert.ok(doc.servers.length > 0 && doc.info.contact.url);
});

const param = (op: Json, name: string) => (op.parameters as Json[]).find((p) => p.name === name);

test('Idempotency-Key and If-Match are documented as the routes enforce them', async () => {
  for (const { path, method, op } of operations()) {
    const key = param(op, 'Idempotency-Key');
    const codes = (status: string) =>
      op.responses[status]?.content['application/problem+json'].schema.allOf[1].properties.code.enum ?? [];
    if (key) {
      assert.match(key.description, /1 day|24 hours/, `${path}: the key's expiry is stated`);
      assert.ok(codes('409').includes('idempotency_key_in_use'), path);
      assert.ok(codes('422').includes('idempotency_key_reused'), path);
      assert.equal(codes('400').includes('idempotency_key_missing'), key.required, path);
      assert.ok(op.responses['409'].headers['Retry-After'], path);
    } else {
      assert.ok(method === 'get' || method === 'delete', `${method} ${path} documents no Idempotency-Key`);
    }
    const ifMatch = param(op, 'If-Match');
    if (ifMatch) assert.ok(codes('412').includes('precondition_failed'), path);
    if (ifMatch?.required) assert.ok(codes('428').includes('precondition_required'), path);
    if (param(op, 'If-None-Match') && method === 'get') assert.ok(op.responses['304'], path);
  }
  // What is documented required is required: without the key, 400 idempotency_key_missing.
  const payments = doc.paths['/v1/payments'].post;
  assert.equal(param(payments, 'Idempotency-Key')?.required, true);
  const missing = await postPayment(t.app, PAYMENT);
  assert.equal(missing.json().code, 'idempotency_key_missing');
  const patch = doc.paths['/v1/orders/{id}'].patch;
  assert.equal(param(patch, 'If-Match')?.required, true);
  assert.equal(param(doc.paths['/v1/webhook-endpoints/{id}'].delete, 'If-Match')?.required, false);
});

/** The response headers this check compares, as the document names them. */
const CHECKED = [
  'ETag',
  'Last-Modified',
  'Location',
  'Idempotent-Replayed',
  'Retry-After',
  'WWW-Authenticate',
];

/** Every header documented on this answer is sent, and every checked header sent is documented. */
function matches(path: string, method: string, res: LightMyRequestResponse): void {
  const response = doc.paths[path][method].responses[String(res.statusCode)];
  assert.ok(response, `${method} ${path} answered an undocumented ${res.statusCode}: ${res.body}`);
  const documented = Object.keys(response.headers ?? {});
  for (const name of documented) {
    // Idempotent-Replayed is sent on a replay only (checked on one below).
    if (name === 'Idempotent-Replayed' && res.headers['idempotent-replayed'] === undefined) continue;
    // On a 409, Retry-After comes with idempotency_key_in_use only (as its description says).
    if (name === 'Retry-After' && res.statusCode === 409 && res.json().code !== 'idempotency_key_in_use')
      continue;
    assert.ok(
      res.headers[name.toLowerCase()] !== undefined,
      `${method} ${path} ${res.statusCode}: no ${name}`,
    );
  }
  for (const name of CHECKED) {
    if (res.headers[name.toLowerCase()] === undefined) continue;
    assert.ok(documented.includes(name), `${method} ${path} ${res.statusCode} sends ${name} undocumented`);
  }
  if (res.statusCode >= 400) assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
}

describe('the headers documented on an answer are the headers sent', () => {
  const json = (tenant: 'acme' | 'globex' = 'acme', extra: Record<string, string> = {}) => ({
    ...auth(tenant),
    ...extra,
  });
  const send = (method: string, url: string, body?: unknown, headers = json()) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });

  test('payments: Location on create, Idempotent-Replayed on replay, WWW-Authenticate on 401', async () => {
    const key = newKey();
    const created = await postPayment(t.app, PAYMENT, { 'idempotency-key': key });
    matches('/v1/payments', 'post', created);
    assert.ok(created.headers.location);
    const replayed = await postPayment(t.app, PAYMENT, { 'idempotency-key': key });
    assert.equal(replayed.headers['idempotent-replayed'], 'true');
    matches('/v1/payments', 'post', replayed);
    const reused = await postPayment(t.app, { ...PAYMENT, amount: '1' }, { 'idempotency-key': key });
    matches('/v1/payments', 'post', reused);
    matches('/v1/payments', 'get', await t.app.inject({ url: '/v1/payments' }));
    matches('/v1/payments/{id}', 'get', await send('GET', String(created.headers.location)));
  });

  test('orders: ETag and Last-Modified on reads and writes, 304, 412 and 428', async () => {
    const url = `/v1/orders/ord_${newKey().slice(0, 8)}`;
    const body = { customerId: 'cus_1', items: [{ sku: 'a', quantity: 1 }] };
    const created = await send('PUT', url, body);
    matches('/v1/orders/{id}', 'put', created);
    const etag = String(created.headers.etag);
    const read = await send('GET', url);
    matches('/v1/orders/{id}', 'get', read);
    matches(
      '/v1/orders/{id}',
      'get',
      await send('GET', url, undefined, json('acme', { 'if-none-match': etag })),
    );
    matches('/v1/orders/{id}', 'put', await send('PUT', url, body));
    const patched = await send('PATCH', url, { shippingAddress: 'x' }, json('acme', { 'if-match': etag }));
    matches('/v1/orders/{id}', 'patch', patched);
    matches(
      '/v1/orders/{id}',
      'patch',
      await send('PATCH', url, { shippingAddress: 'y' }, json('acme', { 'if-match': etag })),
    );
    const ship = await send(
      'POST',
      `${url}/ship`,
      undefined,
      json('acme', { 'if-match': String(patched.headers.etag), 'idempotency-key': newKey() }),
    );
    matches('/v1/orders/{id}/ship', 'post', ship);
    assert.equal(ship.statusCode, 200);
  });

  test('inventory and webhooks: Location and ETag where sent, 204 and 202 answers', async () => {
    const sku = `/v1/inventory/sku_${newKey().slice(0, 8)}`;
    matches('/v1/inventory/{sku}', 'put', await send('PUT', sku, { quantity: 1 }));
    matches('/v1/inventory/{sku}', 'get', await send('GET', sku));
    const reserve = (quantity: number) =>
      send('POST', `${sku}/reservations`, { quantity }, json('acme', { 'idempotency-key': newKey() }));
    matches('/v1/inventory/{sku}/reservations', 'post', await reserve(1));
    matches('/v1/inventory/{sku}/reservations', 'post', await reserve(1)); // 409 out_of_stock

    const created = await send('POST', '/v1/webhook-endpoints', {
      url: 'http://127.0.0.1:9/h',
      eventTypes: ['*'],
    });
    matches('/v1/webhook-endpoints', 'post', created);
    const url = String(created.headers.location);
    matches('/v1/webhook-endpoints/{id}', 'get', await send('GET', url));
    matches('/v1/webhook-endpoints/{id}/test', 'post', await send('POST', `${url}/test`));
    matches('/v1/webhook-endpoints/{id}/disable', 'post', await send('POST', `${url}/disable`));
    const since = new Date(Date.now() - 60_000).toISOString();
    matches('/v1/webhook-endpoints/{id}/recover', 'post', await send('POST', `${url}/recover`, { since }));
    const stale = await send('DELETE', url, undefined, json('acme', { 'if-match': '"0"' }));
    matches('/v1/webhook-endpoints/{id}', 'delete', stale);
    assert.equal(stale.statusCode, 412);
    const deleted = await send('DELETE', url);
    matches('/v1/webhook-endpoints/{id}', 'delete', deleted);
    assert.equal(deleted.statusCode, 204);
    const unauthorized = await t.app.inject({ url: '/v1/events', headers: { authorization: 'Bearer nope' } });
    matches('/v1/events', 'get', unauthorized);
    assert.ok(unauthorized.headers['www-authenticate']);
  });
});

describe('the generator refuses a route that does not say what the document needs', () => {
  const complete = {
    operationId: 'makeThing',
    summary: 'Make a thing',
    description: 'Makes a thing.',
    tags: ['payments'],
    response: { 201: { type: 'object' } },
  };
  const cases: [string, Json, Json, RegExp][] = [
    ['no description', { ...complete, description: undefined }, { idempotency: true }, /schema\.description/],
    ['no operationId', { ...complete, operationId: undefined }, { idempotency: true }, /operationId/],
    ['an undeclared tag', { ...complete, tags: ['undeclared'] }, { idempotency: true }, /schema\.tags/],
    ['no 2xx', { ...complete, response: {} }, { idempotency: true }, /no 2xx/],
    ['a POST without config.idempotency', complete, {}, /config\.idempotency/],
    ['an unknown code', complete, { idempotency: true, problems: ['made_up'] }, /made_up/],
  ];
  for (const [name, schema, config, message] of cases) {
    test(name, async () => {
      const app = Fastify();
      await registerOpenApi(app, { idempotencyTtlMs: 60_000 });
      assert.throws(() => app.post('/v1/things', { schema, config }, async () => ({})), message);
      // The complete route is accepted.
      app.post('/v1/others', { schema: complete, config: { idempotency: true } }, async () => ({}));
      await app.close();
    });
  }
});
