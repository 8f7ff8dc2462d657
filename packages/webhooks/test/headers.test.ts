// An endpoint's custom headers (issue 19, migration 000013): sent with every attempt to a real
// receiver on 127.0.0.1; reserved names, names that are not tokens, values with CR/LF/NUL or other
// control characters, and too many or too long are refused with InvalidHeadersError and change
// nothing. PGlite, and PostgreSQL with DATABASE_URL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import { verifySync } from '@surety/webhook-verify';
import {
  DeliveryWorker,
  isInvalidHeadersError,
  MAX_HEADERS,
  parseAllowList,
  RESERVED_HEADERS,
  Webhooks,
} from '../src/index.js';
import { startReceiver } from '../src/testing.js';

let db: TestDatabase;
let webhooks: Webhooks;
const clock = Date.parse('2026-06-01T00:00:00Z');
let n = 0;

before(async () => {
  db = await createTestDatabase();
  webhooks = new Webhooks({
    sql: db.sql,
    schema: db.schema,
    allowHttp: true,
    allowList: parseAllowList('127.0.0.1/32'),
    now: () => clock,
  });
  await webhooks.migrate();
});
after(() => db.close());

const worker = () =>
  new DeliveryWorker({
    webhooks,
    listen: false,
    random: () => 0,
    timeoutMs: 2000,
    guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
  });

const refused = (e: unknown) => {
  assert.ok(isInvalidHeadersError(e), `not InvalidHeadersError: ${String(e)}`);
  assert.equal((e as { code: string }).code, 'SURETY_INVALID_HEADERS');
  return true;
};

describe('custom headers reach the receiver', () => {
  test('sent with every attempt beside the signature headers; an update replaces them, {} removes them', async () => {
    const tenant = `h${++n}`;
    const rx = await startReceiver();
    try {
      const { endpoint, secret } = await webhooks.createEndpoint(db.sql, {
        tenant,
        url: rx.url,
        eventTypes: ['*'],
        headers: {
          Authorization: 'Bearer abc.def',
          'X-Tenant-Ref': 'cus_42',
          'X-Empty': '',
          'X-Spaced': 'a \tb',
        },
      });
      assert.deepEqual(endpoint.headers, {
        Authorization: 'Bearer abc.def',
        'X-Tenant-Ref': 'cus_42',
        'X-Empty': '',
        'X-Spaced': 'a \tb',
      });
      assert.deepEqual(
        (await webhooks.getEndpoint(db.sql, { tenant, id: endpoint.id }))?.headers,
        endpoint.headers,
      );
      await db.sql.transaction((tx) =>
        webhooks.publish(tx, { tenant, type: 'order.created', data: { i: 1 } }),
      );
      const w = worker();
      assert.equal(await w.drain(), 1);
      const first = rx.received[0]!;
      assert.equal(first.headers.authorization, 'Bearer abc.def');
      assert.equal(first.headers['x-tenant-ref'], 'cus_42');
      assert.equal(first.headers['x-empty'], '');
      assert.equal(first.headers['x-spaced'], 'a \tb');
      assert.equal(first.headers['content-type'], 'application/json');
      verifySync({ body: first.body, headers: first.headers, secrets: [secret], now: () => clock });

      const updated = await webhooks.updateEndpoint(db.sql, {
        tenant,
        id: endpoint.id,
        ifVersion: endpoint.version,
        patch: { headers: { 'x-other': '1' } },
      });
      assert.deepEqual(updated?.headers, { 'x-other': '1' });
      await db.sql.transaction((tx) =>
        webhooks.publish(tx, { tenant, type: 'order.created', data: { i: 2 } }),
      );
      assert.equal(await w.drain(), 1);
      assert.equal(rx.received[1]!.headers['x-other'], '1');
      assert.equal(rx.received[1]!.headers.authorization, undefined, 'replaced, not merged');

      const cleared = await webhooks.updateEndpoint(db.sql, {
        tenant,
        id: endpoint.id,
        ifVersion: updated!.version,
        patch: { headers: {} },
      });
      assert.deepEqual(cleared?.headers, {});
      // an update that does not name headers keeps them
      const kept = await webhooks.updateEndpoint(db.sql, {
        tenant,
        id: endpoint.id,
        ifVersion: cleared!.version,
        patch: { description: 'x' },
      });
      assert.deepEqual(kept?.headers, {});
      await w.stop();
    } finally {
      await rx.close();
    }
  });

  test('an endpoint created without headers has none', async () => {
    const { endpoint } = await webhooks.createEndpoint(db.sql, {
      tenant: `h${++n}`,
      url: 'http://127.0.0.1:9/none',
      eventTypes: ['*'],
    });
    assert.deepEqual(endpoint.headers, {});
  });
});

// Every name the engine refuses, in the case given and in upper case.
const RESERVED = [
  ...RESERVED_HEADERS,
  'Webhook-Id',
  'WEBHOOK-SIGNATURE',
  'webhook-signature-v2',
  'surety-anything',
  'Proxy-Authorization',
  'proxy-connection',
];
const NOT_TOKENS = [
  '',
  'X Space',
  'X:Colon',
  ':path',
  'X-Ü',
  'X(paren)',
  'X-A\r\nX-B',
  'X@',
  'x'.repeat(101),
];
const BAD_VALUES = [
  'a\r\nX-Injected: 1',
  'a\nb',
  'a\rb',
  'a\u0000b',
  'a\u0001b',
  'a\u007fb',
  'café',
  ' leading',
  'trailing ',
  'x'.repeat(1001),
];

describe('refused headers change nothing', () => {
  let tenant: string;
  let id = '';
  let version = 0;

  before(async () => {
    tenant = `h${++n}`;
    const { endpoint } = await webhooks.createEndpoint(db.sql, {
      tenant,
      url: 'http://127.0.0.1:9/kept',
      eventTypes: ['*'],
      headers: { 'X-Kept': 'yes' },
    });
    id = endpoint.id;
    version = endpoint.version;
  });

  const cases: [string, Record<string, unknown>][] = [
    ...RESERVED.flatMap((name) => [
      [`reserved ${name}`, { [name]: 'v' }] as [string, Record<string, unknown>],
      [`reserved ${name.toUpperCase()}`, { [name.toUpperCase()]: 'v' }] as [string, Record<string, unknown>],
    ]),
    ...NOT_TOKENS.map((name): [string, Record<string, unknown>] => [
      `name ${JSON.stringify(name)}`,
      { [name]: 'v' },
    ]),
    ...BAD_VALUES.map((value): [string, Record<string, unknown>] => [
      `value ${JSON.stringify(value.slice(0, 20))}`,
      { 'X-Value': value },
    ]),
    ['a non-string value', { 'X-Number': 1 }],
    ['the same name twice, in two cases', { 'X-Twice': 'a', 'x-twice': 'b' }],
    [
      `${MAX_HEADERS + 1} headers`,
      Object.fromEntries(Array.from({ length: MAX_HEADERS + 1 }, (_, i) => [`X-H${i}`, 'v'])),
    ],
    [
      'over 4096 bytes in all',
      Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`X-Big${i}`, 'v'.repeat(900)])),
    ],
  ];

  test('on create: nothing is inserted', async () => {
    for (const [what, headers] of cases) {
      await assert.rejects(
        webhooks.createEndpoint(db.sql, {
          tenant,
          url: 'http://127.0.0.1:9/refused',
          eventTypes: ['*'],
          headers: headers as Record<string, string>,
        }),
        refused,
        what,
      );
    }
    const { data } = await webhooks.listEndpoints(db.sql, { tenant, limit: 100 });
    assert.deepEqual(
      data.map((e) => e.id),
      [id],
      'only the endpoint made before',
    );
  });

  test('on update: the endpoint keeps its headers and its version', async () => {
    for (const [what, headers] of cases) {
      await assert.rejects(
        webhooks.updateEndpoint(db.sql, {
          tenant,
          id,
          ifVersion: version,
          patch: { headers: headers as Record<string, string> },
        }),
        refused,
        what,
      );
    }
    const after = await webhooks.getEndpoint(db.sql, { tenant, id });
    assert.deepEqual([after?.headers, after?.version], [{ 'X-Kept': 'yes' }, version]);
  });

  test('the error names the header and never quotes its value', async () => {
    try {
      await webhooks.createEndpoint(db.sql, {
        tenant,
        url: 'http://127.0.0.1:9/refused',
        eventTypes: ['*'],
        headers: { Host: 'evil.example', 'X-Secret': 'sk_live_\r\nabc' },
      });
      assert.fail('accepted');
    } catch (e) {
      refused(e);
      const { errors, message } = e as { errors: { path: string }[]; message: string };
      assert.deepEqual(
        errors.map((x) => x.path),
        ['/headers/Host', '/headers/X-Secret'],
      );
      assert.doesNotMatch(message, /sk_live|evil\.example/);
    }
  });
});
