// Pull delivery through the service (issue 36): a poll endpoint is created like any kind and shows
// in the same lists; its consumer reads (GET …/poll) and acknowledges (POST …/poll/ack); two
// consumers of one application each get every event in order across a restart (a new app over the
// same database); another application's or tenant's endpoint or cursor is a 404, a forged cursor
// a 400; a long-poll is answered when an event is published, and a tenant's waits are capped (429).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parseAllowList, Webhooks } from '@surety/webhooks';
import type { FastifyInstance } from 'fastify';
import { buildApp, eventValidator } from '../src/app.js';
import { parseApiKeys } from '../src/config.js';
import { serviceRegistry } from '../src/service-events.js';
import { API_KEYS, auth, createTestApp, newKey, problem, type TestApp } from './helpers.js';

let t: TestApp;
let app: FastifyInstance;

/** The service over the test's database: what a restarted process is. */
async function appOver(options: { maxPerTenant?: number } = {}) {
  const a = await buildApp({
    webhooks: new Webhooks({
      sql: t.db.sql,
      schema: t.db.schema,
      allowHttp: true,
      allowList: parseAllowList('127.0.0.1/32'),
      validate: eventValidator(serviceRegistry()),
    }),
    sql: t.db.sql,
    config: {
      apiKeys: parseApiKeys(API_KEYS),
      bodyLimit: 65_536,
      idempotencyTtlMs: 86_400_000,
      schema: t.db.schema,
    },
    pollWaits: { maxPerTenant: options.maxPerTenant ?? 2, checkMs: 200 },
  });
  await a.ready();
  return a;
}

before(async () => {
  t = await createTestApp();
  app = await appOver();
});
after(async () => {
  await app.close();
  await t.close();
});

const call = (
  method: 'GET' | 'POST',
  url: string,
  body?: unknown,
  headers: Record<string, string> = auth('acme'),
) =>
  app.inject({
    method,
    url,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

const ok = (res: { statusCode: number; body: string }, status = 200) => {
  assert.equal(res.statusCode, status, res.body);
  return JSON.parse(res.body);
};

const sample = structuredClone(serviceRegistry().get('payment.created')!.sample);
const publish = async (application?: string, tenant: 'acme' | 'globex' = 'acme') =>
  ok(
    await call(
      'POST',
      '/v1/events',
      { type: 'payment.created', data: sample, ...(application ? { application } : {}) },
      { ...auth(tenant), 'idempotency-key': newKey() },
    ),
    201,
  ).id as string;

const createApplication = async (tenant: 'acme' | 'globex' = 'acme') =>
  ok(await call('POST', '/v1/applications', { name: 'Pull' }, auth(tenant)), 201).id as string;
const createPoll = async (applicationId?: string, tenant: 'acme' | 'globex' = 'acme') =>
  ok(
    await call(
      'POST',
      '/v1/webhook-endpoints',
      { kind: 'poll', eventTypes: ['*'], ...(applicationId ? { applicationId } : {}) },
      auth(tenant),
    ),
    201,
  );

/** Reads and acknowledges pages of `limit` until one is empty; the event ids in the order read. */
async function consume(id: string, limit: number) {
  const seen: string[] = [];
  for (let page = 0; page < 50; page++) {
    const p = ok(await call('GET', `/v1/webhook-endpoints/${id}/poll?limit=${limit}`));
    if (p.data.length === 0) return seen;
    seen.push(...p.data.map((d: { event: { id: string } }) => d.event.id));
    ok(await call('POST', `/v1/webhook-endpoints/${id}/poll/ack`, { cursor: p.cursor }));
  }
  throw new Error('still reading after 50 pages');
}

test('a poll endpoint is created like any kind, has no URL, and shows in the lists', async () => {
  const ep = await createPoll();
  assert.equal(ep.kind, 'poll');
  assert.equal(ep.url, '');
  assert.equal(ep.destination, null);
  const listed = ok(await call('GET', '/v1/webhook-endpoints?limit=100')).data;
  assert.ok(listed.some((e: { id: string; kind: string }) => e.id === ep.id && e.kind === 'poll'));
  problem(
    await call('POST', '/v1/webhook-endpoints', {
      kind: 'poll',
      url: 'https://example.com',
      eventTypes: ['*'],
    }),
    400,
    'validation_failed',
  );
  problem(await call('POST', '/v1/webhook-endpoints', { eventTypes: ['*'] }), 400, 'validation_failed');
  const hook = ok(
    await call('POST', '/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/h', eventTypes: ['*'] }),
    201,
  );
  problem(await call('GET', `/v1/webhook-endpoints/${hook.id}/poll`), 409, 'not_a_poll_endpoint');
});

test('two consumers of one application each get every event, in order, across a restart', async () => {
  const application = await createApplication();
  const a = (await createPoll(application)).id;
  const b = (await createPoll(application)).id;
  const first = [];
  for (let k = 0; k < 6; k++) first.push(await publish(application));
  await publish(); // the tenant's own event: neither consumer's
  const page = ok(await call('GET', `/v1/webhook-endpoints/${a}/poll?limit=4`));
  assert.deepEqual(
    page.data.map((d: { event: { id: string } }) => d.event.id),
    first.slice(0, 4),
  );
  const acked = ok(await call('POST', `/v1/webhook-endpoints/${a}/poll/ack`, { cursor: page.cursor }));
  assert.deepEqual([acked.object, acked.acknowledged], ['poll_cursor', 4]);
  ok(await call('GET', `/v1/webhook-endpoints/${b}/poll?limit=3`)); // read, never acknowledged
  // Pending for its consumer: listed, never due for an attempt.
  const pending = ok(await call('GET', `/v1/webhook-endpoints/${b}/deliveries?limit=100`)).data;
  assert.equal(pending.length, 6);
  assert.ok(
    pending.every(
      (d: { status: string; nextAttemptAt: null }) => d.status === 'pending' && d.nextAttemptAt === null,
    ),
  );
  const event = ok(await call('GET', `/v1/events/${first[0]}/deliveries`)).data;
  assert.equal(event.length, 2);

  await app.close(); // the restart
  app = await appOver();
  const more = [];
  for (let k = 0; k < 5; k++) more.push(await publish(application));
  assert.deepEqual(await consume(a, 3), [...first.slice(4), ...more]);
  assert.deepEqual(await consume(b, 4), [...first, ...more]);

  // Acknowledged deliveries are delivered in the deliveries listing; the metrics count them.
  const deliveries = ok(await call('GET', `/v1/webhook-endpoints/${b}/deliveries?limit=100`)).data;
  assert.equal(deliveries.length, 11);
  assert.ok(deliveries.every((d: { status: string }) => d.status === 'delivered'));
  const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  assert.match(
    metrics,
    /surety_webhook_poll_events_total\{stage="acknowledged"\} 18/,
    '7 of A and 11 of B since the restart',
  );
  assert.match(metrics, /surety_webhook_backlog\{state="unacknowledged"\} \d+/);
});

test("another application's or tenant's endpoint or cursor is a 404; a forged cursor a 400", async () => {
  const mine = await createApplication();
  const theirs = await createApplication();
  const x = (await createPoll(mine)).id;
  const y = (await createPoll(theirs)).id;
  const z = (await createPoll(undefined, 'globex')).id;
  await publish(mine);
  await publish(theirs);
  const cursorOf = async (id: string, tenant: 'acme' | 'globex' = 'acme') =>
    ok(await call('GET', `/v1/webhook-endpoints/${id}/poll`, undefined, auth(tenant))).cursor as string;
  const yCursor = await cursorOf(y);
  const zCursor = await cursorOf(z, 'globex');
  for (const cursor of [yCursor, zCursor]) {
    problem(
      await call('GET', `/v1/webhook-endpoints/${x}/poll?after=${encodeURIComponent(cursor)}`),
      404,
      'not_found',
    );
    problem(await call('POST', `/v1/webhook-endpoints/${x}/poll/ack`, { cursor }), 404, 'not_found');
  }
  // Another tenant's endpoint, with its own valid cursor: 404 too.
  problem(await call('GET', `/v1/webhook-endpoints/${z}/poll`), 404, 'not_found');
  problem(await call('POST', `/v1/webhook-endpoints/${z}/poll/ack`, { cursor: zCursor }), 404, 'not_found');
  // A portal session of `theirs` reads y, not x.
  const session = ok(await call('POST', `/v1/applications/${theirs}/portal-sessions`, {}), 201);
  const portal = { authorization: `Bearer ${session.token}` };
  assert.equal(ok(await call('GET', `/v1/webhook-endpoints/${y}/poll`, undefined, portal)).data.length, 1);
  problem(await call('GET', `/v1/webhook-endpoints/${x}/poll`, undefined, portal), 404, 'not_found');
  problem(
    await call('POST', `/v1/webhook-endpoints/${x}/poll/ack`, { cursor: yCursor }, portal),
    404,
    'not_found',
  );
  // Forged, edited or garbage: 400 invalid_cursor, never a 5xx; nothing acknowledged.
  const xCursor = await cursorOf(x);
  const [body, mac] = xCursor.slice(3).split('.') as [string, string];
  const edited = `pc_${Buffer.from(Buffer.from(body, 'base64url').toString().replace(/^\d+/, '99')).toString('base64url')}.${mac}`;
  for (const cursor of [
    'garbage',
    `pc_${body}.${'A'.repeat(22)}`,
    edited,
    'pc_\u00e9.x',
    `pc_${'A'.repeat(150)}.${mac}`,
  ]) {
    problem(
      await call('GET', `/v1/webhook-endpoints/${x}/poll?after=${encodeURIComponent(cursor)}`),
      400,
      'invalid_cursor',
    );
    problem(await call('POST', `/v1/webhook-endpoints/${x}/poll/ack`, { cursor }), 400, 'invalid_cursor');
  }
  problem(
    await call('POST', `/v1/webhook-endpoints/${x}/poll/ack`, { cursor: 'x'.repeat(201) }),
    400,
    'validation_failed',
  );
  assert.equal(ok(await call('GET', `/v1/webhook-endpoints/${x}/poll`)).data.length, 1);
});

test('a long-poll answers when an event is published; a tenant has at most its cap of waits', async () => {
  const application = await createApplication();
  const id = (await createPoll(application)).id;
  const started = Date.now();
  const waiting = call('GET', `/v1/webhook-endpoints/${id}/poll?wait=20`);
  await new Promise((r) => setTimeout(r, 300));
  const published = await publish(application); // the wait holds no transaction: PGlite's one connection is free
  const page = ok(await waiting);
  assert.deepEqual(
    page.data.map((d: { event: { id: string } }) => d.event.id),
    [published],
  );
  assert.ok(Date.now() - started < 10_000, `answered after ${Date.now() - started} ms`);

  // The cap (2 in this app): a third wait of acme is a 429; globex is not affected.
  ok(await call('POST', `/v1/webhook-endpoints/${id}/poll/ack`, { cursor: page.cursor }));
  const w1 = call('GET', `/v1/webhook-endpoints/${id}/poll?wait=5`);
  const w2 = call('GET', `/v1/webhook-endpoints/${id}/poll?wait=5`);
  await new Promise((r) => setTimeout(r, 300));
  const refused = await call('GET', `/v1/webhook-endpoints/${id}/poll?wait=5`);
  problem(refused, 429, 'too_many_polls');
  assert.equal(refused.headers['retry-after'], '1');
  ok(await call('GET', `/v1/webhook-endpoints/${id}/poll`), 200); // no wait: not capped
  const g = (await createPoll(undefined, 'globex')).id;
  const other = call('GET', `/v1/webhook-endpoints/${g}/poll?wait=1`, undefined, auth('globex'));
  const last = await publish(application);
  for (const w of [w1, w2]) {
    const p = ok(await w);
    assert.deepEqual(
      p.data.map((d: { event: { id: string } }) => d.event.id),
      [last],
    );
  }
  assert.equal(ok(await other).data.length, 0);
  problem(await call('GET', `/v1/webhook-endpoints/${id}/poll?wait=31`), 400, 'validation_failed');
});

test("the tenant's AsyncAPI document leaves poll endpoints out, and still parses", async () => {
  const poll = (await createPoll()).id;
  const res = await call('GET', '/v1/asyncapi.json');
  assert.equal(res.statusCode, 200, res.body);
  assert.ok(!res.body.includes(poll), 'a poll endpoint is an HTTP request (OpenAPI), not a channel');
  const { Parser } = await import('@asyncapi/parser');
  const { diagnostics } = await new Parser().parse(res.body);
  assert.deepEqual(
    diagnostics.filter((d) => d.severity === 0).map((d) => `${d.code} ${d.path.join('/')}: ${d.message}`),
    [],
  );
  const openapi = (await call('GET', '/openapi.json')).json();
  assert.ok(openapi.paths['/v1/webhook-endpoints/{id}/poll'].get);
  assert.ok(openapi.paths['/v1/webhook-endpoints/{id}/poll/ack'].post);
  assert.ok(openapi.paths['/v1/webhook-endpoints/{id}/poll'].get.responses['429']);
});
