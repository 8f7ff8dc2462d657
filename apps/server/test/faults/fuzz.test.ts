// Fuzzing every write route of the service with fast-check: bodies (valid ones mutated, arbitrary
// JSON, non-JSON, invalid UTF-8, UTF-16, a BOM, oversized, deeply nested), content types,
// Idempotency-Key, If-Match and Authorization spellings, and path parameters. Every answer must be a
// 2xx or a problem+json 4xx (never a 5xx), and a rejected request must write nothing. The write
// routes are read from the router, so a new one is fuzzed without being listed here (with `{}` as
// its valid body until it gets one). Requests go through Fastify's whole pipeline with inject();
// the HTTP parser itself is exercised by limits.test.ts over real sockets. A second part (below)
// sends what PostgreSQL cannot store to every route and field of the OpenAPI document: strings
// with NUL or lone surrogates, bodies that are not UTF-8, forged cursors, out-of-range dates.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { serviceRegistry } from '../../src/service-events.js';
import { auth, createTestApp, KEYS, type TestApp } from '../helpers.js';
import { size } from './lib.js';

let t: TestApp;
const NUM_RUNS = size(100, 1000);
const sample = (type: string) =>
  structuredClone(serviceRegistry().get(type)!.sample) as Record<string, unknown>;
const ids = {
  order: 'ord_fuzz',
  sku: 'SKU-FUZZ',
  endpoint: '',
  event: '',
  application: '',
  session: '',
  eventType: 'fuzz.type',
};
const etags = { order: '', sku: '', endpoint: '', application: '', eventType: '' };
const FUZZ_SCHEMA = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^f_[a-z0-9]{1,20}$' }, n: { type: 'integer' } },
};

const TABLES = [
  'payments',
  'orders',
  'inventory',
  'reservations',
  'webhook_applications',
  'webhook_endpoints',
  'webhook_events',
  'webhook_deliveries',
  'idempotency_keys',
  'portal_sessions',
  'portal_settings',
  'event_types',
  'event_type_schemas',
] as const;

async function counts(): Promise<Record<string, number>> {
  const s = `"${t.db.schema}"`;
  const { rows } = await t.db.sql.query<Record<string, string>>(
    `select ${TABLES.map((x) => `(select count(*) from ${s}.${x})::text as ${x}`).join(', ')}`,
  );
  return Object.fromEntries(Object.entries(rows[0]!).map(([k, v]) => [k, Number(v)]));
}

before(async () => {
  t = await createTestApp();
  const h = { 'content-type': 'application/json', ...auth('acme') };
  const order = await t.app.inject({
    method: 'PUT',
    url: `/v1/orders/${ids.order}`,
    headers: h,
    payload: { customerId: 'cus_f', items: [{ sku: ids.sku, quantity: 1 }] },
  });
  etags.order = String(order.headers.etag);
  const sku = await t.app.inject({
    method: 'PUT',
    url: `/v1/inventory/${ids.sku}`,
    headers: h,
    payload: { quantity: 1000 },
  });
  etags.sku = String(sku.headers.etag);
  const ep = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    headers: h,
    payload: { url: 'http://127.0.0.1:9/fuzz', eventTypes: ['*'] },
  });
  ids.endpoint = ep.json().id;
  etags.endpoint = String(ep.headers.etag);
  const ev = await t.app.inject({
    method: 'POST',
    url: '/v1/events',
    headers: { ...h, 'idempotency-key': 'fuzz-event' },
    payload: { type: 'payment.created', data: sample('payment.created') },
  });
  ids.event = ev.json().id;
  const app = await t.app.inject({
    method: 'POST',
    url: '/v1/applications',
    headers: h,
    payload: { uid: 'fuzz-app', name: 'Fuzz' },
  });
  ids.application = app.json().id;
  etags.application = String(app.headers.etag);
  const session = await t.app.inject({
    method: 'POST',
    url: `/v1/applications/${ids.application}/portal-sessions`,
    headers: h,
    payload: {},
  });
  ids.session = session.json().id;
  const et = await t.app.inject({
    method: 'POST',
    url: '/v1/event-types',
    headers: h,
    payload: { name: ids.eventType, description: 'Fuzzed.', schema: FUZZ_SCHEMA, examples: [{ id: 'f_1' }] },
  });
  etags.eventType = String(et.headers.etag);
  for (const v of [...Object.values(ids), ...Object.values(etags)]) assert.ok(v && v !== 'undefined');
});
after(() => t.close());

/** A valid body per write route (mutated by the fuzzer); routes not listed get `{}`. */
const VALID: Record<string, () => unknown> = {
  'POST /v1/payments': () => ({ amount: '100', currency: 'USD', customerId: 'cus_f' }),
  // The fuzzed endpoint is a webhook, not a poll endpoint: 409 not_a_poll_endpoint or 400 invalid_cursor.
  'POST /v1/webhook-endpoints/{id}/poll/ack': () => ({ cursor: 'pc_fuzz' }),
  'PUT /v1/orders/{id}': () => ({ customerId: 'cus_f', items: [{ sku: ids.sku, quantity: 1 }] }),
  'PATCH /v1/orders/{id}': () => ({ shippingAddress: 'x' }),
  'PUT /v1/inventory/{sku}': () => ({ quantity: 5 }),
  'POST /v1/inventory/{sku}/reservations': () => ({ quantity: 1 }),
  'POST /v1/webhook-endpoints': () => ({
    url: 'http://127.0.0.1:9/f',
    eventTypes: ['*'],
    applicationId: ids.application,
    headers: { 'X-Fuzz': 'a b', Authorization: 'Bearer f' },
    filter: {
      'data.amount': { $gte: 1 },
      $or: [{ type: 'payment.created' }, { 'data.tags': { $in: ['a'] } }],
    },
  }),
  'PATCH /v1/webhook-endpoints/{id}': () => ({
    description: 'x',
    headers: { 'X-Fuzz': 'c' },
    filter: { 'data.currency': { $nin: ['USD'] } },
  }),
  'POST /v1/webhook-endpoints/{id}/rotate-secret': () => ({ overlapSeconds: 10 }),
  'POST /v1/webhook-endpoints/{id}/recover': () => ({ since: '2020-01-01T00:00:00Z' }),
  'POST /v1/webhook-endpoints/{id}/disable': () => ({ reason: 'fuzz' }),
  'POST /v1/events': () => ({ type: 'payment.created', data: sample('payment.created') }),
  'POST /v1/events/{id}/replay': () => ({}),
  // A uid: the first valid create takes it, the later ones are 409 (or create without it, mutated).
  'POST /v1/applications': () => ({ uid: 'fuzz-new', name: 'Fuzz', metadata: { plan: 'gold' } }),
  'PATCH /v1/applications/{id}': () => ({ name: 'Renamed', metadata: {} }),
  'POST /v1/applications/{id}/portal-sessions': () => ({ expiresInSeconds: 600, readOnly: true }),
  'PUT /v1/portal-settings': () => ({
    frameAncestors: ['https://shop.example.com', 'http://127.0.0.1:8080'],
  }),
  'POST /v1/event-types': () => ({
    name: 'fuzz.created',
    description: 'A fuzzed type.',
    schema: FUZZ_SCHEMA,
    examples: [{ id: 'f_2', n: 1 }],
  }),
  'PATCH /v1/event-types/{name}': () => ({
    schema: { ...FUZZ_SCHEMA, properties: { ...FUZZ_SCHEMA.properties, note: { type: 'string' } } },
    examples: [{ id: 'f_3' }],
    deprecated: true,
  }),
};

/** The write routes of the router ("METHOD /path/{param}"). */
function writeRoutes(): string[] {
  const tree = t.app.printRoutes({ commonPrefix: false });
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│ ]*)[├└]── (\S+) \(([A-Z, ]+)\)/.exec(line);
    if (!m) continue;
    stack.length = m[1]!.length / 4;
    stack.push(m[2]!);
    const path = stack.join('').replace(/:(\w+)/g, '{$1}');
    for (const method of m[3]!.split(', '))
      if (['POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) routes.push(`${method} ${path}`);
  }
  return routes;
}

/** A header value as HTTP allows it on the wire: tab, visible ASCII, space, obs-text (latin1). */
const headerText = (maxLength = 40) =>
  fc
    .array(
      fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constant(9)),
      {
        maxLength,
      },
    )
    .map((codes) => String.fromCharCode(...codes));

const jsonish = fc.oneof(
  fc.jsonValue(),
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.constant(null),
  fc.constant(''),
  fc.constant('1'),
  fc.constant(-1),
  fc.constant(1e308),
  fc.constant('9'.repeat(40)),
  fc.constant({ __proto__: { polluted: true } }),
  fc.constant(JSON.parse('{"__proto__":{"polluted":true}}')),
  fc.constant({ constructor: { prototype: { polluted: true } } }),
  // What PostgreSQL cannot store: NUL (text and jsonb), lone surrogates (jsonb; U+FFFD in text).
  fc.constantFrom('\u0000', 'x\u0000', '\ud800', 'x\udc00', { 'k\u0000': 'v' }, { k: '\ud800' }),
  fc.string({ unit: 'binary', maxLength: 8 }),
);

/** A valid body with one field replaced, removed, or an extra one added. */
const mutated = (valid: unknown) =>
  fc.oneof(
    fc.constant(valid),
    fc.tuple(fc.nat(), jsonish).map(([i, v]) => {
      if (typeof valid !== 'object' || valid === null) return v;
      const keys = Object.keys(valid);
      if (keys.length === 0) return { extra: v };
      return { ...(valid as object), [keys[i % keys.length]!]: v };
    }),
    fc.nat().map((i) => {
      if (typeof valid !== 'object' || valid === null) return valid;
      const copy = { ...(valid as Record<string, unknown>) };
      const keys = Object.keys(copy);
      if (keys.length > 0) delete copy[keys[i % keys.length]!];
      return copy;
    }),
    jsonish.map((v) => ({ ...(valid as object), unexpected: v })),
  );

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const body = (valid: unknown) =>
  fc.oneof(
    { weight: 4, arbitrary: mutated(valid).map((v) => JSON.stringify(v) ?? '') },
    { weight: 2, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string() },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)) },
    { weight: 1, arbitrary: fc.constant(Buffer.concat([BOM, Buffer.from(JSON.stringify(valid) ?? '')])) },
    { weight: 1, arbitrary: fc.constant(Buffer.from(JSON.stringify(valid) ?? '', 'utf16le')) },
    { weight: 1, arbitrary: fc.constant(Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d])) }, // {"\xc3(":1}
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 5000 }).map((n) => '['.repeat(n) + ']'.repeat(n)) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 60_000, max: 200_000 }).map((n) => `{"a":"${'x'.repeat(n)}"}`),
    },
    { weight: 1, arbitrary: fc.constant('') },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );

const contentType = fc.option(
  fc.oneof(
    { weight: 6, arbitrary: fc.constant('application/json') },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        'application/json; charset=utf-8',
        'APPLICATION/JSON',
        'application/merge-patch+json',
        'application/json; charset=latin1',
        'application/json;;',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/xml',
        '*/*',
        '',
      ),
    },
    { weight: 1, arbitrary: headerText() },
  ),
  { freq: 8 },
);

const idempotencyKey = fc.option(
  fc.oneof(
    fc.uuid(),
    headerText(300),
    fc.constantFrom('', ' ', 'a b', 'x'.repeat(255), 'x'.repeat(256), 'fuzz-event', '\t'),
    fc.string({ unit: 'grapheme', maxLength: 10 }).map((s) => encodeURIComponent(s)),
  ),
  { freq: 3 },
);

const ifMatch = (etag: string) =>
  fc.option(
    fc.oneof(
      fc.constant(etag),
      fc.constantFrom(
        '*',
        '"v1"',
        'W/"v1"',
        `${etag}, "v999"`,
        `W/${etag}`,
        '"',
        '""',
        ',',
        'v1',
        `${etag},`,
      ),
      headerText(),
    ),
    { freq: 2 },
  );

const authorization = fc.oneof(
  { weight: 12, arbitrary: fc.constant(`Bearer ${KEYS.acme}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      `bearer ${KEYS.acme}`,
      `Bearer  ${KEYS.acme} `,
      `Bearer ${KEYS.acme} extra`,
      `Basic ${Buffer.from(`acme:${KEYS.acme}`).toString('base64')}`,
      'Bearer',
      '',
      `Bearer ${KEYS.acme.toUpperCase()}`,
    ),
  },
  { weight: 1, arbitrary: headerText(100) },
);

const param = (valid: string) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant(valid) },
    { weight: 1, arbitrary: fc.string({ maxLength: 80 }).map((s) => encodeURIComponent(s) || 'x') },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '..%2F..',
        '%00',
        '%E0%A4%A',
        '%',
        'a'.repeat(300),
        '%E2%80%AE',
        'we_' + 'A'.repeat(22),
      ),
    },
  );

function pathFor(route: string) {
  const path = route.slice(route.indexOf(' ') + 1);
  const valid = path.includes('/orders/')
    ? ids.order
    : path.includes('/inventory/')
      ? ids.sku
      : path.includes('/webhook-endpoints/')
        ? ids.endpoint
        : path.includes('/applications/')
          ? ids.application
          : path.includes('/portal-sessions/')
            ? ids.session
            : path.includes('/event-types/')
              ? ids.eventType
              : ids.event;
  const etag = path.includes('/orders/')
    ? etags.order
    : path.includes('/inventory/')
      ? etags.sku
      : path.includes('/applications/')
        ? etags.application
        : path.includes('/event-types/')
          ? etags.eventType
          : etags.endpoint;
  return { path, valid, etag };
}

// Answers that say "not carried out": they must leave no trace at all. 409 and 422 are outcomes
// stored with their key (out of stock, key reuse, an invalid event) and may add a key row only.
const STORED_4XX = new Set([409, 422]);

describe(`fuzzing every write route (${NUM_RUNS} runs each)`, () => {
  test('the router has the expected write routes, and each has a valid body', () => {
    const routes = writeRoutes();
    assert.ok(routes.length >= 15, routes.join(', '));
    const bodiless = routes.filter((r) => !(r in VALID));
    assert.deepEqual(
      bodiless.sort(),
      [
        'DELETE /v1/applications/{id}',
        'DELETE /v1/webhook-endpoints/{id}',
        'DELETE /v1/portal-sessions/{id}',
        'POST /v1/orders/{id}/ship',
        'POST /v1/webhook-endpoints/{id}/enable',
        'POST /v1/webhook-endpoints/{id}/test',
      ].sort(),
      'a new write route: add its valid body to VALID',
    );
  });

  // Collected at module level so each route is its own test.
  const routes = [
    'POST /v1/payments',
    'PUT /v1/orders/{id}',
    'PATCH /v1/orders/{id}',
    'POST /v1/orders/{id}/ship',
    'PUT /v1/inventory/{sku}',
    'POST /v1/inventory/{sku}/reservations',
    'POST /v1/webhook-endpoints',
    'PATCH /v1/webhook-endpoints/{id}',
    'DELETE /v1/webhook-endpoints/{id}',
    'POST /v1/webhook-endpoints/{id}/rotate-secret',
    'POST /v1/webhook-endpoints/{id}/enable',
    'POST /v1/webhook-endpoints/{id}/test',
    'POST /v1/webhook-endpoints/{id}/recover',
    'POST /v1/webhook-endpoints/{id}/poll/ack',
    // After the routes that need the endpoint enabled: a valid request disables it.
    'POST /v1/webhook-endpoints/{id}/disable',
    'POST /v1/events',
    'POST /v1/events/{id}/replay',
    'POST /v1/event-types',
    'PATCH /v1/event-types/{name}',
    'POST /v1/applications',
    'PATCH /v1/applications/{id}',
    'POST /v1/applications/{id}/portal-sessions',
    // A valid request revokes the session.
    'DELETE /v1/portal-sessions/{id}',
    'PUT /v1/portal-settings',
    // Last of the application routes: a valid request deletes it (and its endpoints).
    'DELETE /v1/applications/{id}',
  ];
  test('the list fuzzed below is the router’s list', () => {
    assert.deepEqual([...routes].sort(), writeRoutes().sort());
  });

  for (const route of routes) {
    test(route, async () => {
      const method = route.slice(0, route.indexOf(' '));
      const { path, valid, etag } = pathFor(route);
      const request = fc.record({
        param: param(valid),
        body: body((VALID[route] ?? (() => ({})))()),
        contentType,
        key: idempotencyKey,
        ifMatch: ifMatch(etag),
        authorization,
      });
      const stats = new Map<number, number>();
      await fc
        .assert(
          fc.asyncProperty(request, async (r) => {
            const headers: Record<string, string> = { authorization: r.authorization };
            if (r.contentType !== null) headers['content-type'] = r.contentType;
            if (r.key !== null) headers['idempotency-key'] = r.key;
            if (r.ifMatch !== null) headers['if-match'] = r.ifMatch;
            const url = path.replace(/\{\w+\}/, r.param);
            const before = await counts();
            const res = await t.app.inject({
              method: method as 'POST',
              url,
              headers,
              ...(r.body === undefined ? {} : { payload: r.body }),
            });
            stats.set(res.statusCode, (stats.get(res.statusCode) ?? 0) + 1);
            const where = `${method} ${url} → ${res.statusCode} ${res.body.slice(0, 300)}`;
            assert.ok(res.statusCode < 500, where);
            if (res.statusCode >= 400) {
              assert.match(String(res.headers['content-type']), /^application\/problem\+json/, where);
              const problem = res.json() as { status: number; code: string };
              assert.equal(problem.status, res.statusCode, where);
              assert.equal(typeof problem.code, 'string', where);
              const after = await counts();
              if (STORED_4XX.has(res.statusCode)) after.idempotency_keys = before.idempotency_keys!;
              assert.deepEqual(after, before, `a rejected request wrote something: ${where}`);
            }
          }),
          { numRuns: NUM_RUNS },
        )
        .catch((error: Error) => {
          // fast-check keeps the failing assertion as the cause; show it with the counterexample.
          const cause = (error.cause as Error | undefined)?.message ?? '';
          throw new Error(`${error.message.slice(0, 2000)}\n${cause}`);
        });
      process.stderr.write(`[fuzz] ${route}: ${JSON.stringify(Object.fromEntries(stats))}\n`);
    });
  }

  test('the server is still up and serving writes', async () => {
    assert.equal((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/payments',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'after-fuzz', ...auth('acme') },
      payload: { amount: '1', currency: 'USD', customerId: 'cus_after' },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(({} as { polluted?: boolean }).polluted, undefined, 'no prototype pollution');
  });
});

// ---------------------------------------------------------------------------------------------
// What PostgreSQL cannot store, on every route and every field the API documents: strings with
// U+0000 or a lone surrogate (text refuses NUL; jsonb refuses \u0000 and unpaired surrogates, and
// a text column would silently get U+FFFD), forged cursors on every list route, and date-times
// outside what PostgreSQL and RFC 3339 share. The routes and their fields are read from the
// OpenAPI document (every /v1 route must be in it), so a new route, field or list is covered
// without being listed here. Each answer must be a problem+json 4xx with the expected code, and a
// follow-up read of every table must show nothing changed.
// ---------------------------------------------------------------------------------------------

interface Schema {
  type?: string | string[];
  format?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
}
interface Operation {
  method: string;
  /** The OpenAPI path, `/v1/orders/{id}`. */
  path: string;
  query: Record<string, Schema>;
  pathParams: string[];
  body: Schema | undefined;
}

function operations(): Operation[] {
  const doc = t.app.swagger() as {
    paths: Record<
      string,
      Record<
        string,
        {
          parameters?: { in: string; name: string; schema: Schema }[];
          requestBody?: { content: Record<string, { schema: Schema }> };
        }
      >
    >;
  };
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = op.parameters ?? [];
      ops.push({
        method: method.toUpperCase(),
        path,
        query: Object.fromEntries(params.filter((p) => p.in === 'query').map((p) => [p.name, p.schema])),
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        body: op.requestBody?.content['application/json']?.schema,
      });
    }
  }
  return ops;
}

const typesOf = (s: Schema) => ([] as string[]).concat(s.type ?? []);

/**
 * The route's valid body (VALID) with every optional field the schema documents filled in, so
 * that each string the API could store is present: `description`, `metadata`, `resource`, … .
 */
function fullBody(op: Operation): unknown {
  const valid = VALID[`${op.method} ${op.path}`]?.() ?? {};
  const fill = (schema: Schema, value: unknown): unknown => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    const out = { ...(value as Record<string, unknown>) };
    for (const [name, s] of Object.entries(schema.properties ?? {})) {
      if (name in out || s.format === 'date-time') continue;
      const types = typesOf(s);
      if (types.includes('string')) out[name] = 'x';
      else if (types.includes('object') && typeof s.additionalProperties === 'object') out[name] = { k: 'v' };
    }
    return out;
  };
  return op.body ? fill(op.body, valid) : valid;
}

/** Strings PostgreSQL refuses (NUL) or would silently change (lone surrogates become U+FFFD). */
const UNSTORABLE = ['\u0000', 'a\u0000b', '\ud800', 'x\udbff', '\udc00', '\udc00\ud800'];

/** Every way to put an unstorable string into `value`: each string replaced, each key renamed, a key added. */
function* poisoned(value: unknown, bad: string): Generator<{ path: string; value: unknown }> {
  if (typeof value === 'string') {
    yield { path: '', value: bad };
    return;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      for (const inner of poisoned(value[i], bad)) {
        const copy = [...value];
        copy[i] = inner.value;
        yield { path: `/${i}${inner.path}`, value: copy };
      }
    }
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const entries = Object.entries(value);
  for (const [key, v] of entries) {
    for (const inner of poisoned(v, bad)) {
      yield { path: `/${key}${inner.path}`, value: { ...value, [key]: inner.value } };
    }
    yield {
      path: `/${key}${bad}`,
      value: Object.fromEntries(entries.map(([k, x]) => [k === key ? `${k}${bad}` : k, x])),
    };
  }
  yield { path: `/${bad}`, value: { ...value, [bad]: 'v' } };
}

/** Percent-encodes any string, lone surrogates too (as the bytes their WTF-8 form would have). */
const encodeAny = (s: string) =>
  [...s]
    .map((ch) => {
      const code = ch.charCodeAt(0);
      if (ch.length === 1 && code >= 0xd800 && code <= 0xdfff) {
        return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
          .map((b) => `%${b.toString(16).toUpperCase()}`)
          .join('');
      }
      return encodeURIComponent(ch);
    })
    .join('');

function urlFor(op: Operation, query: Record<string, string> = {}, params: Record<string, string> = {}) {
  const { valid } = pathFor(`${op.method} ${op.path}`);
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? valid);
  const qs = Object.entries(query)
    .map(([k, v]) => `${encodeAny(k)}=${encodeAny(v)}`)
    .join('&');
  return qs ? `${path}?${qs}` : path;
}

/** A digest of every row of every table: what a follow-up read would show. */
async function snapshot(): Promise<Record<string, string>> {
  const s = `"${t.db.schema}"`;
  const { rows } = await t.db.sql.query<Record<string, string>>(
    `select ${TABLES.map(
      (x) =>
        `(select count(*)::text || ':' || md5(coalesce(string_agg(r::text, ',' order by r::text), '')) from ${s}.${x} r) as ${x}`,
    ).join(', ')}`,
  );
  return rows[0]!;
}

interface Probe {
  method: string;
  url: string;
  body?: unknown;
  /** The codes that may answer; the first is the one the rule gives. */
  codes: string[];
}

let probeN = 0;
async function expectRefused(p: Probe): Promise<void> {
  const before = await snapshot();
  // With If-Match: * (and a key where one is required) a request that got past the check would be
  // carried out, and the snapshot would show it.
  const headers: Record<string, string> = { ...auth('acme'), 'if-match': '*' };
  if (p.body !== undefined) headers['content-type'] = 'application/json';
  if (p.method !== 'GET') headers['idempotency-key'] = `poison-${++probeN}`;
  const res = await t.app.inject({
    method: p.method as 'POST',
    url: p.url,
    headers,
    ...(p.body === undefined ? {} : { payload: JSON.stringify(p.body) }),
  });
  const where = `${p.method} ${p.url} ${JSON.stringify(p.body) ?? ''} → ${res.statusCode} ${res.body.slice(0, 300)}`;
  assert.ok(res.statusCode >= 400 && res.statusCode < 500, where);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/, where);
  const problem = res.json() as { status: number; code: string };
  assert.equal(problem.status, res.statusCode, where);
  assert.ok(p.codes.includes(problem.code), `expected ${p.codes.join(' or ')}: ${where}`);
  assert.deepEqual(await snapshot(), before, `a refused request changed something: ${where}`);
}

describe('what PostgreSQL cannot store, on every route the API documents', () => {
  // The fuzzing above may have deleted or disabled the endpoint: the list routes need one.
  before(async () => {
    const ep = await t.app.inject({
      method: 'POST',
      url: '/v1/webhook-endpoints',
      headers: { 'content-type': 'application/json', ...auth('acme') },
      payload: { url: 'http://127.0.0.1:9/poison', eventTypes: ['*'] },
    });
    assert.equal(ep.statusCode, 201, ep.body);
    ids.endpoint = ep.json().id;
    etags.endpoint = String(ep.headers.etag);
  });

  test('every /v1 route of the router is in the OpenAPI document (where its fields are read)', () => {
    const documented = new Set(operations().map((o) => `${o.method} ${o.path}`));
    const tree = t.app.printRoutes({ commonPrefix: false });
    const stack: string[] = [];
    const missing: string[] = [];
    for (const line of tree.split('\n')) {
      const m = /^([│ ]*)[├└]── (\S+) \(([A-Z, ]+)\)/.exec(line);
      if (!m) continue;
      stack.length = m[1]!.length / 4;
      stack.push(m[2]!);
      const path = stack.join('').replace(/:(\w+)/g, '{$1}');
      if (!path.startsWith('/v1')) continue;
      for (const method of m[3]!.split(', '))
        if (method !== 'HEAD' && !documented.has(`${method} ${path}`)) missing.push(`${method} ${path}`);
    }
    assert.deepEqual(missing, []);
    assert.ok(documented.size >= 25, [...documented].join(', '));
  });

  test('unstorable strings in every body field and key: 400 invalid_character, nothing changed', async () => {
    let probes = 0;
    for (const op of operations()) {
      if (!op.body) continue;
      const body = fullBody(op);
      for (const bad of UNSTORABLE) {
        for (const { value } of poisoned(body, bad)) {
          await expectRefused({
            method: op.method,
            url: urlFor(op),
            body: value,
            codes: ['invalid_character'],
          });
          probes++;
        }
      }
    }
    process.stderr.write(`[fuzz] unstorable body strings: ${probes} requests\n`);
    assert.ok(probes > 300, String(probes));
  });

  test('unstorable strings in every query parameter and path parameter: a 4xx, nothing changed', async () => {
    let probes = 0;
    for (const op of operations()) {
      for (const bad of UNSTORABLE) {
        for (const name of [...Object.keys(op.query), `q${bad}`]) {
          // A lone surrogate can only be sent percent-encoded, as bytes that are not UTF-8: the
          // query string itself is then refused (invalid_url).
          await expectRefused({
            method: op.method,
            url: urlFor(op, { [name]: bad }),
            codes: bad.includes('\u0000') ? ['invalid_character'] : ['invalid_url'],
          });
          probes++;
        }
        for (const name of op.pathParams) {
          // The router refuses a percent-encoded surrogate in a path itself (invalid_url).
          await expectRefused({
            method: op.method,
            url: urlFor(op, {}, { [name]: encodeAny(bad) }),
            ...(op.body ? { body: fullBody(op) } : {}),
            codes: ['invalid_character', 'invalid_url'],
          });
          probes++;
        }
      }
      // Percent-encodings that are not UTF-8 would reach the route as something else than was sent.
      for (const raw of ['%FF', '%C3%28', '%ED%A0%80', '%E0%A4%A', '%']) {
        await expectRefused({ method: op.method, url: `${urlFor(op)}?q=${raw}`, codes: ['invalid_url'] });
        probes++;
      }
    }
    process.stderr.write(`[fuzz] unstorable query and path strings: ${probes} requests\n`);
  });

  test('a body that is not UTF-8 is refused, not decoded with U+FFFD: 400 invalid_json', async () => {
    // Raw bytes in place of each string of each body: a lone 0xFF, a broken sequence, an encoded
    // surrogate (CESU-8) and an overlong NUL. Node's decoder would turn each into U+FFFD.
    const MARK = '\u0001MARK';
    const BYTES = [[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xc0, 0x80]];
    let probes = 0;
    for (const op of operations()) {
      if (!op.body) continue;
      for (const { value } of poisoned(fullBody(op), MARK)) {
        const [head, tail] = JSON.stringify(value).split(JSON.stringify(MARK).slice(1, -1));
        if (tail === undefined) continue;
        for (const bytes of BYTES) {
          const before = await snapshot();
          const res = await t.app.inject({
            method: op.method as 'POST',
            url: urlFor(op),
            headers: {
              ...auth('acme'),
              'if-match': '*',
              'content-type': 'application/json',
              'idempotency-key': `bytes-${probes}`,
            },
            payload: Buffer.concat([Buffer.from(head!), Buffer.from(bytes), Buffer.from(tail)]),
          });
          const where = `${op.method} ${op.path} ${head}<${bytes}>${tail} → ${res.statusCode} ${res.body.slice(0, 200)}`;
          assert.equal(res.statusCode, 400, where);
          assert.equal((res.json() as { code: string }).code, 'invalid_json', where);
          assert.deepEqual(await snapshot(), before, where);
          probes++;
        }
      }
    }
    assert.ok(probes > 100, String(probes));
  });

  test('every other route of the router refuses them too (the rule is global, not per schema)', async () => {
    for (const url of ['/healthz', '/readyz', '/openapi.json', '/asyncapi.json', '/dashboard', '/metrics']) {
      await expectRefused({ method: 'GET', url: `${url}?q=%00`, codes: ['invalid_character'] });
    }
  });

  test('date-times outside what PostgreSQL stores, in every date-time field: 400 date_out_of_range', async () => {
    const dates = [
      '0000-01-01T00:00:00Z',
      '0000-12-31T23:59:59.999Z',
      '0001-01-01T00:30:00+01:00', // year 0 once in UTC
      '9999-12-31T23:59:59-00:01', // year 10000 once in UTC
    ];
    let fields = 0;
    for (const op of operations()) {
      for (const [name, s] of Object.entries(op.query)) {
        if (s.format !== 'date-time') continue;
        fields++;
        for (const d of dates)
          await expectRefused({
            method: op.method,
            url: urlFor(op, { [name]: d }),
            codes: ['date_out_of_range'],
          });
      }
      for (const [name, s] of Object.entries(op.body?.properties ?? {})) {
        if (s.format !== 'date-time') continue;
        fields++;
        const body = fullBody(op) as Record<string, unknown>;
        for (const d of dates)
          await expectRefused({
            method: op.method,
            url: urlFor(op),
            body: { ...body, [name]: d },
            codes: ['date_out_of_range'],
          });
      }
    }
    assert.ok(fields >= 2, `date-time fields found: ${fields}`);
  });

  const b64 = (v: unknown) =>
    Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
  const FORGED = [
    '!!!!',
    '%00',
    'a',
    '====',
    b64('not json'),
    b64(Buffer.from([0xff, 0xfe, 0x00, 0x01]).toString('latin1')),
    b64({}),
    b64('"x"'),
    b64(1),
    b64(null),
    b64([]),
    b64(['not-a-date', 'x']),
    b64([123, 'x']),
    b64(['0', 'x']),
    b64(['2020', 'x']),
    b64(['2026-01-01T00:00:00.000Z', 'a\u0000b']),
    b64(['2026-01-01T00:00:00.000Z', '\ud800']),
    b64(['2026-01-01T00:00:00.000Z', 7]),
    b64(['2026-01-01T00:00:00.000Z']),
    b64(['2026-01-01T00:00:00.000Z', 'x', 'y']),
    b64(['0000-01-01T00:00:00.000Z', 'x']),
    b64(['+010000-01-01T00:00:00.000Z', 'x']),
    // Microsecond timestamps: only six digits, of a date that exists, never a whole millisecond.
    b64(['2026-02-30T00:00:00.000001Z', 'x']),
    b64(['2026-01-01T24:00:00.000001Z', 'x']),
    b64(['0000-12-31T23:59:59.999999Z', 'x']),
    b64(['10000-01-01T00:00:00.000001Z', 'x']),
    b64(['2026-01-01T00:00:00.1234567Z', 'x']),
    b64(['2026-01-01T00:00:00.12345Z', 'x']),
    b64(['2026-01-01T00:00:00.123000Z', 'x']),
    b64(['2026-01-01T00:00:00.123456+00:00', 'x']),
    b64(['abc']),
    b64([1e30]),
    b64([9.5]),
    b64(['9.5']),
    b64(['-1']),
    b64(['0']),
    b64(['99999999999999999999']),
    b64(['1\u0000']),
    b64([null]),
    b64([['2026-01-01T00:00:00.000Z', 'x']]),
    `${b64(['1'])}!`,
    '1e400',
    b64('[1e400]'),
  ];

  test('forged cursors of every shape on every list route: 400 invalid_cursor', async () => {
    const lists = operations().filter((o) => o.method === 'GET' && 'cursor' in o.query);
    assert.ok(lists.length >= 5, lists.map((o) => o.path).join(', '));
    for (const op of lists) {
      for (const cursor of FORGED) {
        await expectRefused({
          method: 'GET',
          url: `${urlFor(op)}?cursor=${encodeURIComponent(cursor)}`,
          codes: ['invalid_cursor'],
        });
      }
    }
  });

  test('arbitrary cursors (random JSON and bytes, base64url) on every list route: never a 5xx', async () => {
    const lists = operations().filter((o) => o.method === 'GET' && 'cursor' in o.query);
    const cursor = fc.oneof(
      fc.jsonValue().map(b64),
      fc
        .array(fc.oneof(fc.string(), fc.double(), fc.integer(), fc.constant(null)), { maxLength: 3 })
        .map(b64),
      fc.uint8Array({ maxLength: 60 }).map((b) => Buffer.from(b).toString('base64url')),
      fc.string({ maxLength: 40 }),
      // Timestamps with microseconds, in range or not, valid ones included: those reach PostgreSQL.
      fc
        .tuple(
          fc.oneof(
            fc.date({
              min: new Date('0001-01-01T00:00:00Z'),
              max: new Date('9999-12-31T23:59:59.999Z'),
              noInvalidDate: true,
            }),
            fc.date({ noInvalidDate: true }),
          ),
          fc.integer({ min: 0, max: 999 }),
          fc.string({ maxLength: 8 }),
        )
        .map(([d, us, id]) => b64([`${d.toISOString().slice(0, -1)}${String(us).padStart(3, '0')}Z`, id])),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...lists), cursor, async (op, c) => {
        const res = await t.app.inject({
          method: 'GET',
          url: `${urlFor(op)}?cursor=${encodeAny(c)}`,
          headers: auth('acme'),
        });
        const where = `${op.path} cursor=${JSON.stringify(c)} → ${res.statusCode} ${res.body.slice(0, 200)}`;
        assert.ok(res.statusCode < 500, where);
        if (res.statusCode >= 400) {
          assert.match(String(res.headers['content-type']), /^application\/problem\+json/, where);
          assert.equal(typeof (res.json() as { code: unknown }).code, 'string', where);
        }
      }),
      { numRuns: NUM_RUNS * 2 },
    );
  });
});
