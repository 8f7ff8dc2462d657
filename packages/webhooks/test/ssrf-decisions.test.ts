// The guard's decisions on a table of attack URLs, with an injected resolver and a connector that
// records the address it was asked for and never opens a socket: no packet leaves the process,
// even if the guard is broken. Loopback targets are exercised end to end in ssrf-e2e.test.ts.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { request } from 'undici';
import {
  createGuardedDispatcher,
  type DeliveryErrorCode,
  guardedPost,
  isDeliveryError,
} from '../src/ssrf.js';
import { recordingConnector, tableResolver } from './ssrf-helpers.js';

const PUBLIC4 = '93.184.215.14';
const PUBLIC6 = '2606:4700::1111';

const { resolver, calls } = tableResolver({
  'public.example': [PUBLIC4],
  'public6.example': [PUBLIC6],
  'dual.example': [PUBLIC4, PUBLIC6],
  'internal.example': ['10.0.0.5'],
  'corp.example': ['172.20.1.1'],
  'home.example': ['192.168.1.1'],
  'metadata.example': ['169.254.169.254'],
  'linklocal.example': ['169.254.10.10'],
  'cgnat.example': ['100.64.1.1'],
  'zero.example': ['0.0.0.0'],
  'loop.example': ['127.0.0.1'],
  'loop2.example': ['127.0.0.2'],
  'v6loop.example': ['::1'],
  'ula.example': ['fd00::1'],
  'awsmeta6.example': ['fd00:ec2::254'],
  'v6ll.example': ['fe80::1'],
  'mapped.example': ['::ffff:127.0.0.1'],
  'mappedmeta.example': ['::ffff:169.254.169.254'],
  'nat64.example': ['64:ff9b::a9fe:a9fe'],
  'nat64public.example': ['64:ff9b::808:808'],
  'sixtofour.example': ['2002:a00:1::1'],
  'teredo.example': ['2001:0:4136:e378:8000:63bf:3fff:fdd2'],
  'mixed.example': [PUBLIC4, '10.0.0.1'],
  'mixedlast.example': [PUBLIC4, PUBLIC6, 'fe80::1'],
  'multicast.example': ['224.0.0.251'],
  'bench.example': ['198.18.0.10'],
  'garbage.example': ['not-an-address'],
  // DNS rebinding: public at the first lookup, private afterwards
  'rebind.example': (n) => (n === 1 ? [PUBLIC4] : ['10.0.0.1']),
});

type Expected =
  | { connect: string; servername?: string; port?: string }
  | { error: DeliveryErrorCode; reason?: string };

const TABLE: ReadonlyArray<readonly [string, Expected]> = [
  // allowed: the connector is asked for exactly the checked address, with the name as SNI
  ['https://public.example/hook', { connect: PUBLIC4, servername: 'public.example', port: '' }],
  ['https://public.example:8443/hook', { connect: PUBLIC4, servername: 'public.example', port: '8443' }],
  ['https://public6.example/hook', { connect: PUBLIC6, servername: 'public6.example' }],
  ['https://dual.example/hook', { connect: PUBLIC4, servername: 'dual.example' }],
  [`https://${PUBLIC4}/hook`, { connect: PUBLIC4 }],
  [`https://[${PUBLIC6}]/hook`, { connect: PUBLIC6 }],
  ['https://[::ffff:8.8.8.8]/hook', { connect: '::ffff:808:808' }],
  ['https://nat64public.example/', { connect: '64:ff9b::808:808', servername: 'nat64public.example' }],
  // names resolving to blocked addresses
  ['https://internal.example/', { error: 'ssrf_blocked' }],
  ['https://corp.example/', { error: 'ssrf_blocked' }],
  ['https://home.example/', { error: 'ssrf_blocked' }],
  ['https://metadata.example/latest/meta-data/', { error: 'ssrf_blocked' }],
  ['https://linklocal.example/', { error: 'ssrf_blocked' }],
  ['https://cgnat.example/', { error: 'ssrf_blocked' }],
  ['https://zero.example/', { error: 'ssrf_blocked' }],
  ['https://loop.example/', { error: 'ssrf_blocked' }],
  ['https://loop2.example/', { error: 'ssrf_blocked' }],
  ['https://v6loop.example/', { error: 'ssrf_blocked' }],
  ['https://ula.example/', { error: 'ssrf_blocked' }],
  ['https://awsmeta6.example/', { error: 'ssrf_blocked' }],
  ['https://v6ll.example/', { error: 'ssrf_blocked' }],
  ['https://mapped.example/', { error: 'ssrf_blocked' }],
  ['https://mappedmeta.example/', { error: 'ssrf_blocked' }],
  ['https://nat64.example/', { error: 'ssrf_blocked' }],
  ['https://sixtofour.example/', { error: 'ssrf_blocked' }],
  ['https://teredo.example/', { error: 'ssrf_blocked' }],
  ['https://mixed.example/', { error: 'ssrf_blocked' }],
  ['https://mixedlast.example/', { error: 'ssrf_blocked' }],
  ['https://multicast.example/', { error: 'ssrf_blocked' }],
  ['https://bench.example/', { error: 'ssrf_blocked' }],
  ['https://garbage.example/', { error: 'ssrf_blocked' }],
  ['https://nxdomain.example/', { error: 'dns_failed' }],
  // IP literals in every spelling: refused before any lookup or connect
  ['https://10.0.0.1/', { error: 'ssrf_blocked' }],
  ['https://172.16.0.1/', { error: 'ssrf_blocked' }],
  ['https://192.168.0.1/', { error: 'ssrf_blocked' }],
  ['https://169.254.169.254/latest/meta-data/', { error: 'ssrf_blocked' }],
  ['https://2852039166/', { error: 'ssrf_blocked' }], // 169.254.169.254 in decimal
  ['https://0xA9FEA9FE/', { error: 'ssrf_blocked' }],
  ['https://0251.0376.0251.0376/', { error: 'ssrf_blocked' }], // octal
  ['https://169.254.43518/', { error: 'ssrf_blocked' }], // short form
  ['https://100.64.0.1/', { error: 'ssrf_blocked' }],
  ['https://0.0.0.0/', { error: 'ssrf_blocked' }],
  ['https://0/', { error: 'ssrf_blocked' }],
  ['https://167772161/', { error: 'ssrf_blocked' }], // 10.0.0.1
  ['https://[::ffff:169.254.169.254]/', { error: 'ssrf_blocked' }],
  ['https://[::ffff:a00:1]/', { error: 'ssrf_blocked' }],
  ['https://[64:ff9b::a9fe:a9fe]/', { error: 'ssrf_blocked' }],
  ['https://[64:ff9b:1::a00:1]/', { error: 'ssrf_blocked' }],
  ['https://[2002:a9fe:a9fe::]/', { error: 'ssrf_blocked' }],
  ['https://[::169.254.169.254]/', { error: 'ssrf_blocked' }],
  ['https://[fd00:ec2::254]/', { error: 'ssrf_blocked' }],
  ['https://[fe80::a9fe:a9fe]/', { error: 'ssrf_blocked' }],
  ['https://[fec0::1]/', { error: 'ssrf_blocked' }],
  ['https://[ff02::1]/', { error: 'ssrf_blocked' }],
  ['https://[100::1]/', { error: 'ssrf_blocked' }],
  ['https://[2001:db8::1]/', { error: 'ssrf_blocked' }],
  ['https://[::]/', { error: 'ssrf_blocked' }],
  // refused by URL validation
  ['http://public.example/', { error: 'invalid_url', reason: 'https_required' }],
  ['https://user:pw@public.example/', { error: 'invalid_url', reason: 'credentials_in_url' }],
  ['https://public.example/#x', { error: 'invalid_url', reason: 'fragment_in_url' }],
  ['ftp://public.example/', { error: 'invalid_url', reason: 'unsupported_protocol' }],
  ['https://[fe80::1%25eth0]/', { error: 'invalid_url', reason: 'invalid_url' }],
];

describe('SSRF decisions (injected resolver, recording connector, no sockets)', () => {
  const rec = recordingConnector();
  const guard = createGuardedDispatcher({
    resolver,
    connector: rec.connect,
    connectTimeoutMs: 1000,
    timeoutMs: 2000,
  });
  after(() => guard.close());

  test('the table has at least 40 cases', () => assert.ok(TABLE.length >= 40, String(TABLE.length)));

  for (const [url, expected] of TABLE) {
    const label = 'connect' in expected ? `connects to ${expected.connect}` : expected.error;
    test(`${url} -> ${label}`, async () => {
      const before = rec.attempts.length;
      const error = await guardedPost(guard, url, { body: '{}' }).then(
        () => assert.fail('the recorder never answers, so no response is possible'),
        (e: unknown) => e,
      );
      assert.ok(isDeliveryError(error), String(error));
      const attempts = rec.attempts.slice(before);
      if ('connect' in expected) {
        assert.equal(error.code, 'connection_error', error.message);
        assert.equal(attempts.length, 1);
        assert.equal(attempts[0]!.hostname, expected.connect);
        assert.equal(attempts[0]!.servername, expected.servername);
        if (expected.port !== undefined) assert.equal(attempts[0]!.port, expected.port);
      } else {
        assert.equal(error.code, expected.error, error.message);
        if (expected.reason) assert.equal((error as { reason?: string }).reason, expected.reason);
        assert.deepEqual(attempts, [], 'the connector must not be asked to connect');
      }
    });
  }

  test('a rebinding name is connected at its first, checked answer; the next connection re-checks', async () => {
    const before = rec.attempts.length;
    await assert.rejects(guardedPost(guard, 'https://rebind.example/'), { code: 'connection_error' });
    await assert.rejects(guardedPost(guard, 'https://rebind.example/'), { code: 'ssrf_blocked' });
    assert.deepEqual(
      rec.attempts.slice(before).map((a) => a.hostname),
      [PUBLIC4],
    );
    assert.equal(calls.get('rebind.example'), 2, 'one lookup per connection, none between check and connect');
  });

  test('the dispatcher is guarded on its own, without guardedPost', async () => {
    const before = rec.attempts.length;
    await assert.rejects(request('http://internal.example/', { dispatcher: guard.dispatcher }), {
      code: 'ssrf_blocked',
    });
    await assert.rejects(request('http://2130706433/', { dispatcher: guard.dispatcher }), {
      code: 'ssrf_blocked',
    });
    assert.equal(rec.attempts.length, before);
  });

  test('onCheck observes allowed and blocked decisions', async () => {
    const seen: Array<{ hostname: string; address?: string; blocked: number }> = [];
    const r = recordingConnector();
    const g = createGuardedDispatcher({
      resolver,
      connector: r.connect,
      onCheck: (c) => seen.push({ hostname: c.hostname, address: c.address, blocked: c.blocked.length }),
    });
    try {
      await assert.rejects(guardedPost(g, 'https://public.example/'));
      await assert.rejects(guardedPost(g, 'https://mixed.example/'));
      assert.deepEqual(seen, [
        { hostname: 'public.example', address: PUBLIC4, blocked: 0 },
        { hostname: 'mixed.example', address: undefined, blocked: 1 },
      ]);
    } finally {
      await g.close();
    }
  });
});
