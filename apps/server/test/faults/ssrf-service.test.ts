// SSRF through the service: attack URLs sent to POST /v1/webhook-endpoints, then deliveries made by
// the service's delivery worker. The guard's own decision table (62 URLs, injected resolver,
// recording connector) and its loopback canaries are in packages/webhooks/test/ssrf-*.test.ts; this
// file proves the service wires them in. The service is configured as in development and tests:
// http allowed, 127.0.0.1/32 allow-listed and nothing else. Every name resolves through a table
// (no DNS), and the connector under the guard refuses anything but loopback, so no packet can leave
// the host even if the guard were broken; canaries on 127.0.0.2 must see nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DeliveryWorker, parseAllowList } from '@surety/webhooks';
import {
  listen,
  loopbackOnlyConnector,
  type TestServer,
  tableResolver,
} from '../../../../packages/webhooks/test/ssrf-helpers.js';
import { auth, createTestApp, problem, type TestApp } from '../helpers.js';

let t: TestApp;
let receiver: TestServer; // 127.0.0.1: allowed
let canary: TestServer; // 127.0.0.2, same port: must see nothing
let worker: DeliveryWorker;
let rebinds = 0;
const { resolver } = tableResolver({
  'receiver.test': ['127.0.0.1'],
  'canary.test': ['127.0.0.2'],
  'internal.test': ['10.0.0.5'],
  'metadata.test': ['169.254.169.254'],
  'cgnat.test': ['100.64.0.1'],
  'v6loop.test': ['::1'],
  'ula.test': ['fd00::1'],
  'mapped.test': ['::ffff:127.0.0.2'],
  'nat64.test': ['64:ff9b::a9fe:a9fe'],
  'mixed.test': ['127.0.0.1', '10.0.0.1'],
  // DNS rebinding: the allowed address at the first lookup, the canary afterwards
  'rebind.test': () => (++rebinds === 1 ? ['127.0.0.1'] : ['127.0.0.2']),
});
const conn = loopbackOnlyConnector({ timeout: 2_000 });

before(async () => {
  t = await createTestApp();
  receiver = await listen('127.0.0.1', 0, (req, res) => {
    req.resume();
    if (req.url === '/redirect') {
      res.writeHead(302, { location: `http://127.0.0.2:${canary.port}/landed` }).end();
    } else if (req.url === '/close') {
      // a failure that closes the connection, so the retry needs a new one (and a new lookup)
      res.writeHead(500, { connection: 'close' }).end('try again');
    } else res.writeHead(200).end('ok');
  });
  canary = await listen('127.0.0.2', receiver.port);
  worker = new DeliveryWorker({
    webhooks: t.app.webhooks,
    listen: false,
    random: () => 0,
    guard: {
      allowList: parseAllowList('127.0.0.1/32'),
      allowHttp: true,
      resolver,
      connector: conn.connect,
      connectTimeoutMs: 1_000,
      timeoutMs: 2_000,
    },
  });
});
after(async () => {
  await t.close();
  await Promise.all([receiver.close(), canary.close()]);
});

const create = (url: string) =>
  t.app.inject({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    headers: { 'content-type': 'application/json', ...auth('acme') },
    payload: JSON.stringify({ url, eventTypes: ['*'] }),
  });

/** Private, loopback (other than the allow-listed 127.0.0.1), metadata and special targets as IP literals. */
const LITERALS = (p: number) => [
  `http://127.0.0.2:${p}/`,
  `http://2130706434:${p}/`, // 127.0.0.2, decimal
  `http://0x7f000002:${p}/`, // hex
  `http://0x7f.0.0.2:${p}/`,
  `http://0177.0.0.2:${p}/`, // octal
  `http://127.2:${p}/`, // short form
  `http://[::1]:${p}/`,
  `http://[0:0:0:0:0:0:0:1]:${p}/`,
  `http://[::ffff:127.0.0.2]:${p}/`,
  `http://[::ffff:7f00:2]:${p}/`,
  'http://10.0.0.1/',
  'http://167772161/', // 10.0.0.1
  'http://172.16.0.1/',
  'http://192.168.1.1/',
  'http://0xc0.0xa8.1.1/',
  'http://169.254.169.254/latest/meta-data/',
  'http://2852039166/', // 169.254.169.254
  'http://0xA9FEA9FE/',
  'http://0251.0376.0251.0376/',
  'http://169.254.43518/',
  'http://100.64.0.1/',
  'http://0.0.0.0/',
  'http://0/',
  'http://255.255.255.255/',
  'http://224.0.0.1/',
  'http://198.18.0.1/',
  'http://[::]/',
  'http://[fd00:ec2::254]/',
  'http://[fe80::1]/',
  'http://[::ffff:169.254.169.254]/',
  'http://[::ffff:a9fe:a9fe]/',
  'http://[64:ff9b::a9fe:a9fe]/',
  'http://[2002:a9fe:a9fe::]/',
  'http://[ff02::1]/',
];
/** Refused whatever the address: not http(s), credentials, fragments, malformed. */
const MALFORMED = [
  'file:///etc/passwd',
  'gopher://127.0.0.1:70/',
  'ftp://receiver.test/',
  'javascript:alert(1)',
  'http://user:pw@receiver.test/',
  'http://receiver.test/#frag',
  'http://[fe80::1%25eth0]/',
  'http://receiver.test:0/',
  'not a url',
  `http://receiver.test/${'a'.repeat(2100)}`,
];

describe('POST /v1/webhook-endpoints refuses attack URLs before storing them', () => {
  test(`${LITERALS(1).length + MALFORMED.length} URLs → 400 invalid_webhook_url (or validation_failed), nothing stored`, async () => {
    const before = await t.count('webhook_endpoints');
    for (const url of [...LITERALS(receiver.port), ...MALFORMED]) {
      const res = await create(url);
      const code = url.length > 2048 ? 'validation_failed' : 'invalid_webhook_url';
      problem(res, 400, code);
    }
    assert.equal(await t.count('webhook_endpoints'), before);
    assert.equal(receiver.hits.length + canary.hits.length, 0);
  });
});

describe('names are checked at every delivery, through the service worker', () => {
  const deliveryOf = async (endpointId: string) => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/v1/webhook-endpoints/${endpointId}/deliveries`,
      headers: auth('acme'),
    });
    return res.json().data[0] as { id: string; status: string; attempts: number; lastStatus: number | null };
  };
  const attemptsOf = async (deliveryId: string) =>
    (
      await t.app.inject({
        method: 'GET',
        url: `/v1/deliveries/${deliveryId}/attempts`,
        headers: auth('acme'),
      })
    ).json().data as { status: number | null; errorCode: string | null }[];

  const send = async (url: string) => {
    const created = await create(url);
    assert.equal(created.statusCode, 201, `${url}: ${created.body}`);
    const id = created.json().id as string;
    const sent = await t.app.inject({
      method: 'POST',
      url: `/v1/webhook-endpoints/${id}/test`,
      headers: auth('acme'),
    });
    assert.equal(sent.statusCode, 202, sent.body);
    return id;
  };

  test('names resolving to blocked addresses are stored, and every delivery to them is refused', async () => {
    const names = [
      'canary.test',
      'internal.test',
      'metadata.test',
      'cgnat.test',
      'v6loop.test',
      'ula.test',
      'mapped.test',
      'nat64.test',
      'mixed.test',
    ];
    const ids = [];
    for (const name of names) ids.push(await send(`http://${name}:${receiver.port}/hook`));
    await worker.drain();
    for (const [i, id] of ids.entries()) {
      const d = await deliveryOf(id);
      const attempts = await attemptsOf(d.id);
      assert.equal(attempts.length, 1, names[i]);
      assert.equal(attempts[0]!.errorCode, 'ssrf_blocked', `${names[i]}: ${JSON.stringify(attempts[0])}`);
    }
    assert.deepEqual(canary.hits, []);
    assert.deepEqual(conn.refused, [], 'the connector was never even asked for a non-loopback address');
    assert.ok(!conn.connected.includes('127.0.0.2'));
  });

  test('an allowed receiver answering a redirect to the canary: the 302 is the answer, not followed', async () => {
    const id = await send(`http://receiver.test:${receiver.port}/redirect`);
    await worker.drain();
    const attempts = await attemptsOf((await deliveryOf(id)).id);
    assert.equal(attempts[0]!.status, 302);
    assert.deepEqual(canary.hits, []);
    assert.ok(receiver.hits.some((h) => h.url === '/redirect'));
    assert.ok(!receiver.hits.some((h) => h.url === '/landed'));
  });

  test('DNS rebinding between two deliveries: the second lookup answers the canary and is refused', async () => {
    const id = await send(`http://rebind.test:${receiver.port}/close`);
    await worker.drain();
    t.clock.now += 10 * 60_000; // past the first retry delay
    await worker.drain();
    const attempts = await attemptsOf((await deliveryOf(id)).id);
    assert.deepEqual(
      attempts.map((a) => a.status ?? a.errorCode),
      [500, 'ssrf_blocked'],
    );
    assert.deepEqual(canary.hits, []);
    assert.deepEqual(conn.refused, []);
  });
});
