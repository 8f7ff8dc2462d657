// Applications through the service (issue 19, docs/applications.md): the semantics of every new
// route as tables (idempotent create, If-Match, 409/422/404/428, 401), endpoints of an application
// (`applicationId` on create, in the answer and as a list filter), and events published to one
// (`application`): the fan-out rule seen through the API. PGlite, and PostgreSQL with DATABASE_URL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { serviceRegistry } from '../src/service-events.js';
import { auth, createTestApp, newKey, problem, type TestApp } from './helpers.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const sample = (type: string) =>
  structuredClone(serviceRegistry().get(type)!.sample) as Record<string, unknown>;

type Tenant = 'acme' | 'globex';
function call(
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
  tenant: Tenant = 'acme',
) {
  return t.app.inject({
    method,
    url,
    headers: {
      ...auth(tenant),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

function ok(res: LightMyRequestResponse, status: number) {
  assert.equal(res.statusCode, status, res.body);
  return res;
}

let uidN = 0;
const uid = () => `cus_${++uidN}`;
async function createApp(body: Record<string, unknown> = {}, tenant: Tenant = 'acme') {
  const res = ok(
    await call('POST', '/v1/applications', { name: 'Acme', uid: uid(), ...body }, {}, tenant),
    201,
  );
  return {
    ...(res.json() as { id: string; uid: string | null; name: string }),
    etag: String(res.headers.etag),
  };
}
const applications = () => t.count('webhook_applications');
const endpoints = () => t.count('webhook_endpoints');
const events = () => t.count('webhook_events');

describe('POST /v1/applications', () => {
  test('201 with the application, Location and ETag; retrieved by id and by uid', async () => {
    const u = uid();
    const res = ok(
      await call('POST', '/v1/applications', { uid: u, name: 'Initech', metadata: { plan: 'gold' } }),
      201,
    );
    const body = res.json();
    assert.match(body.id, /^app_[0-9A-Za-z]{22}$/);
    assert.deepEqual(Object.keys(body).sort(), [
      'createdAt',
      'id',
      'metadata',
      'name',
      'object',
      'uid',
      'updatedAt',
    ]);
    assert.deepEqual(
      { object: body.object, uid: body.uid, name: body.name, metadata: body.metadata },
      { object: 'application', uid: u, name: 'Initech', metadata: { plan: 'gold' } },
    );
    assert.equal(res.headers.location, `/v1/applications/${body.id}`);
    assert.match(String(res.headers.etag), /^"[^"]+"$/);
    for (const ref of [body.id, u]) {
      const got = ok(await call('GET', `/v1/applications/${ref}`), 200);
      assert.deepEqual(got.json(), body);
      assert.equal(got.headers.etag, res.headers.etag);
    }
    const bare = ok(await call('POST', '/v1/applications', { name: 'No uid' }), 201).json();
    assert.deepEqual([bare.uid, bare.metadata], [null, {}]);
  });

  test('Idempotency-Key: the same answer again, replayed; another body with it is 422; one row', async () => {
    const key = newKey();
    const body = { uid: uid(), name: 'Once' };
    const before = await applications();
    const first = ok(await call('POST', '/v1/applications', body, { 'idempotency-key': key }), 201);
    const again = ok(await call('POST', '/v1/applications', body, { 'idempotency-key': key }), 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);
    assert.equal(again.headers.etag, first.headers.etag);
    assert.equal(again.headers.location, first.headers.location);
    problem(
      await call('POST', '/v1/applications', { ...body, name: 'Other' }, { 'idempotency-key': key }),
      422,
      'idempotency_key_reused',
    );
    assert.equal(await applications(), before + 1);
  });

  // status, code, body: each refused with nothing written.
  const refused: [string, number, string, () => Record<string, unknown>][] = [
    ['a uid another application has', 409, 'application_uid_taken', () => ({ uid: 'taken', name: 'B' })],
    ['a uid starting with app_', 422, 'application_uid_reserved', () => ({ uid: 'app_1', name: 'B' })],
    ['no name', 400, 'validation_failed', () => ({ uid: uid() })],
    ['an empty name', 400, 'validation_failed', () => ({ name: '' })],
    ['a uid with a slash', 400, 'validation_failed', () => ({ uid: 'a/b', name: 'B' })],
    ['a uid of 101 characters', 400, 'validation_failed', () => ({ uid: 'u'.repeat(101), name: 'B' })],
    [
      'a metadata value that is not a string',
      400,
      'validation_failed',
      () => ({ name: 'B', metadata: { n: 1 } }),
    ],
    ['metadata that is an array', 400, 'validation_failed', () => ({ name: 'B', metadata: ['x'] })],
    ['an unknown field', 400, 'validation_failed', () => ({ name: 'B', colour: 'red' })],
  ];
  before(async () => {
    await createApp({ uid: 'taken' });
  });
  for (const [name, status, code, body] of refused) {
    test(`${name}: ${status} ${code}, nothing written`, async () => {
      const before = await applications();
      problem(await call('POST', '/v1/applications', body()), status, code);
      assert.equal(await applications(), before);
    });
  }

  test('409 with a key is the stored answer: the retry gets it again, replayed', async () => {
    await createApp({ uid: 'held' });
    const key = newKey();
    const first = await call(
      'POST',
      '/v1/applications',
      { uid: 'held', name: 'X' },
      { 'idempotency-key': key },
    );
    const body = problem(first, 409, 'application_uid_taken') as unknown as { uid: string };
    assert.equal(body.uid, 'held');
    const again = await call(
      'POST',
      '/v1/applications',
      { uid: 'held', name: 'X' },
      { 'idempotency-key': key },
    );
    problem(again, 409, 'application_uid_taken');
    assert.equal(again.headers['idempotent-replayed'], 'true');
  });

  test('another tenant may use the same uid', async () => {
    const a = await createApp({ uid: 'shared' });
    const b = await createApp({ uid: 'shared' }, 'globex');
    assert.notEqual(a.id, b.id);
    assert.equal(
      ok(await call('GET', '/v1/applications/shared', undefined, {}, 'globex'), 200).json().id,
      b.id,
    );
  });
});

describe('GET /v1/applications', () => {
  test('newest first, keyset pages; another tenant’s are never listed', async () => {
    const made = [await createApp(), await createApp(), await createApp()].map((a) => a.id);
    const seen: string[] = [];
    let cursor = '';
    for (let i = 0; i < 100; i++) {
      const page = ok(await call('GET', `/v1/applications?limit=2${cursor}`), 200).json();
      assert.equal(page.object, 'list');
      seen.push(...page.data.map((a: { id: string }) => a.id));
      if (!page.hasMore) break;
      cursor = `&cursor=${encodeURIComponent(page.nextCursor)}`;
    }
    assert.equal(new Set(seen).size, seen.length, 'no duplicates');
    for (const id of made) assert.ok(seen.includes(id));
    const theirs = ok(await call('GET', '/v1/applications?limit=100', undefined, {}, 'globex'), 200).json();
    for (const a of theirs.data) assert.ok(!seen.includes(a.id));
    problem(await call('GET', '/v1/applications?cursor=forged'), 400, 'invalid_cursor');
  });
});

describe('GET, PATCH, DELETE /v1/applications/{id or uid}', () => {
  test('GET: 404 for an unknown id or uid and for another tenant’s; 304 for a matching If-None-Match', async () => {
    const a = await createApp();
    for (const ref of ['app_0000000000000000000000', 'nobody']) {
      problem(await call('GET', `/v1/applications/${ref}`), 404, 'not_found');
    }
    problem(await call('GET', `/v1/applications/${a.id}`, undefined, {}, 'globex'), 404, 'not_found');
    problem(await call('GET', `/v1/applications/${a.uid}`, undefined, {}, 'globex'), 404, 'not_found');
    const cached = await call('GET', `/v1/applications/${a.uid}`, undefined, { 'if-none-match': a.etag });
    assert.equal(cached.statusCode, 304);
  });

  test('PATCH: 428 without If-Match, 412 when stale, 200 and a new ETag when current', async () => {
    const a = await createApp({ metadata: { a: '1' } });
    const url = `/v1/applications/${a.uid}`;
    problem(await call('PATCH', url, { name: 'New' }), 428, 'precondition_required');
    const changed = ok(
      await call('PATCH', url, { name: 'New', metadata: { b: '2' } }, { 'if-match': a.etag }),
      200,
    );
    assert.deepEqual([changed.json().name, changed.json().metadata], ['New', { b: '2' }]);
    assert.notEqual(changed.headers.etag, a.etag);
    problem(await call('PATCH', url, { name: 'Late' }, { 'if-match': a.etag }), 412, 'precondition_failed');
    const current = ok(await call('GET', url), 200);
    assert.equal(current.json().name, 'New');
    assert.equal(current.headers.etag, changed.headers.etag);
  });

  test('PATCH: the uid moves, is refused when taken or reserved, and is removed with null', async () => {
    const a = await createApp();
    const b = await createApp();
    const etagOf = async (ref: string) =>
      String(ok(await call('GET', `/v1/applications/${ref}`), 200).headers.etag);
    problem(
      await call('PATCH', `/v1/applications/${a.id}`, { uid: b.uid }, { 'if-match': await etagOf(a.id) }),
      409,
      'application_uid_taken',
    );
    problem(
      await call('PATCH', `/v1/applications/${a.id}`, { uid: 'app_x' }, { 'if-match': await etagOf(a.id) }),
      422,
      'application_uid_reserved',
    );
    const moved = ok(
      await call('PATCH', `/v1/applications/${a.id}`, { uid: 'moved-1' }, { 'if-match': await etagOf(a.id) }),
      200,
    );
    assert.equal(moved.json().uid, 'moved-1');
    problem(await call('GET', `/v1/applications/${a.uid}`), 404, 'not_found');
    const cleared = ok(
      await call('PATCH', `/v1/applications/moved-1`, { uid: null }, { 'if-match': await etagOf(a.id) }),
      200,
    );
    assert.equal(cleared.json().uid, null);
    problem(
      await call('PATCH', `/v1/applications/${a.id}`, {}, { 'if-match': '*' }),
      400,
      'validation_failed',
    );
    problem(
      await call('PATCH', '/v1/applications/nobody', { name: 'x' }, { 'if-match': '*' }),
      404,
      'not_found',
    );
  });

  test('DELETE: 412 for a stale If-Match; deletes its endpoints and fails their queue; events stay; then 404', async () => {
    const a = await createApp();
    const other = await createApp();
    const ep = (applicationId: string) =>
      call('POST', '/v1/webhook-endpoints', {
        url: 'http://127.0.0.1:9/a',
        eventTypes: ['*'],
        applicationId,
      });
    const mine = ok(await ep(a.uid!), 201).json();
    const theirs = ok(await ep(other.id), 201).json();
    const published = ok(
      await call(
        'POST',
        '/v1/events',
        { type: 'payment.created', data: sample('payment.created'), application: a.uid },
        { 'idempotency-key': newKey() },
      ),
      201,
    ).json();
    problem(
      await call('DELETE', `/v1/applications/${a.id}`, undefined, { 'if-match': '"999"' }),
      412,
      'precondition_failed',
    );
    const gone = await call('DELETE', `/v1/applications/${a.uid}`, undefined, { 'if-match': a.etag });
    assert.equal(gone.statusCode, 204, gone.body);
    assert.equal(gone.headers.etag, undefined);
    problem(await call('GET', `/v1/applications/${a.id}`), 404, 'not_found');
    problem(await call('DELETE', `/v1/applications/${a.id}`), 404, 'not_found');
    problem(await call('GET', `/v1/webhook-endpoints/${mine.id}`), 404, 'not_found');
    ok(await call('GET', `/v1/webhook-endpoints/${theirs.id}`), 200);
    const deliveries = ok(await call('GET', `/v1/events/${published.id}/deliveries`), 200).json().data;
    assert.deepEqual(
      deliveries.map((d: { endpointId: string; status: string; lastError: string }) => [
        d.endpointId,
        d.status,
        d.lastError,
      ]),
      [[mine.id, 'failed', 'endpoint_deleted']],
    );
    assert.equal(ok(await call('GET', `/v1/events/${published.id}`), 200).json().applicationId, a.id);
    problem(await call('DELETE', `/v1/applications/${other.id}`, undefined, {}, 'globex'), 404, 'not_found');
  });

  test('every route answers 401 without an API key', async () => {
    for (const [method, url] of [
      ['POST', '/v1/applications'],
      ['GET', '/v1/applications'],
      ['GET', '/v1/applications/x'],
      ['PATCH', '/v1/applications/x'],
      ['DELETE', '/v1/applications/x'],
    ] as const) {
      const res = await t.app.inject({
        method,
        url,
        ...(method === 'POST' || method === 'PATCH' ? { payload: { name: 'x' } } : {}),
      });
      problem(res, 401, 'unauthorized');
    }
  });
});

describe('endpoints and events of an application', () => {
  test('an endpoint takes applicationId (id or uid), says it, and the list filters by it', async () => {
    const a = await createApp();
    const create = (body: Record<string, unknown>) =>
      call('POST', '/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/e', eventTypes: ['*'], ...body });
    const byUid = ok(await create({ applicationId: a.uid }), 201).json();
    const byId = ok(await create({ applicationId: a.id }), 201).json();
    const own = ok(await create({}), 201).json();
    assert.deepEqual([byUid.applicationId, byId.applicationId, own.applicationId], [a.id, a.id, null]);
    assert.equal(ok(await call('GET', `/v1/webhook-endpoints/${byUid.id}`), 200).json().applicationId, a.id);
    for (const ref of [a.id, a.uid]) {
      const listed = ok(await call('GET', `/v1/webhook-endpoints?applicationId=${ref}`), 200).json();
      assert.deepEqual(listed.data.map((e: { id: string }) => e.id).sort(), [byUid.id, byId.id].sort());
    }
    assert.deepEqual(
      ok(await call('GET', '/v1/webhook-endpoints?applicationId=nobody'), 200).json().data,
      [],
    );
    // Another tenant's application is unknown here: 422, nothing written.
    const theirs = await createApp({}, 'globex');
    const before = await endpoints();
    for (const ref of ['nobody', theirs.id, theirs.uid!]) {
      const res = await create({ applicationId: ref });
      const body = problem(res, 422, 'unknown_application') as unknown as { errors: { path: string }[] };
      assert.equal(body.errors[0]?.path, '/applicationId');
    }
    problem(await create({ applicationId: 'a b' }), 400, 'validation_failed');
    assert.equal(await endpoints(), before);
    // applicationId is set once: PATCH does not take it.
    problem(
      await call('PATCH', `/v1/webhook-endpoints/${own.id}`, { applicationId: a.id }, { 'if-match': '*' }),
      400,
      'validation_failed',
    );
  });

  test('POST /v1/events with application reaches its endpoints only; unknown is 422 and writes nothing', async () => {
    const a = await createApp();
    const b = await createApp();
    const endpoint = async (applicationId?: string) =>
      ok(
        await call('POST', '/v1/webhook-endpoints', {
          url: 'http://127.0.0.1:9/f',
          eventTypes: ['payment.created'],
          ...(applicationId ? { applicationId } : {}),
        }),
        201,
      ).json().id as string;
    const ea = await endpoint(a.uid!);
    const eb = await endpoint(b.id);
    const publish = (application?: string) =>
      call(
        'POST',
        '/v1/events',
        { type: 'payment.created', data: sample('payment.created'), ...(application ? { application } : {}) },
        { 'idempotency-key': newKey() },
      );
    const targets = async (eventId: string) =>
      ok(await call('GET', `/v1/events/${eventId}/deliveries`), 200)
        .json()
        .data.map((d: { endpointId: string }) => d.endpointId);
    const toA = ok(await publish(a.uid!), 201).json();
    assert.equal(toA.applicationId, a.id);
    assert.deepEqual(await targets(toA.id), [ea]);
    const toB = ok(await publish(b.id), 201).json();
    assert.deepEqual(await targets(toB.id), [eb]);
    const plain = ok(await publish(), 201).json();
    assert.equal(plain.applicationId, null);
    const plainTargets = await targets(plain.id);
    assert.ok(!plainTargets.includes(ea) && !plainTargets.includes(eb), 'no application: none of theirs');
    // GET /v1/events?applicationId=
    for (const ref of [a.id, a.uid]) {
      const listed = ok(await call('GET', `/v1/events?applicationId=${ref}&limit=100`), 200).json();
      assert.deepEqual(
        listed.data.map((e: { id: string }) => e.id),
        [toA.id],
      );
    }
    // Unknown, or another tenant's: 422 unknown_application naming /application; nothing written.
    const theirs = await createApp({}, 'globex');
    const before = { events: await events(), keys: await t.count('idempotency_keys') };
    for (const ref of ['nobody', theirs.id, 'app_0000000000000000000000']) {
      const body = problem(await publish(ref), 422, 'unknown_application') as unknown as {
        errors: { path: string }[];
      };
      assert.equal(body.errors[0]?.path, '/application');
    }
    assert.deepEqual({ events: await events(), keys: await t.count('idempotency_keys') }, before);
  });
});
