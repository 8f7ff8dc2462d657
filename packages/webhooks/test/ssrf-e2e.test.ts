// End to end against real servers, all on loopback. `127.0.0.1/32` is allow-listed; canaries on
// 127.0.0.2 and ::1 must never see a request, whatever the spelling of the URL aimed at them. The
// connector under the guard is restricted to loopback, so a broken guard still cannot leave the host.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createGuardedDispatcher, type GuardedDispatcher, guardedPost, parseAllowList } from '../src/ssrf.js';
import {
  ipv6LoopbackAvailable,
  listen,
  loopbackOnlyConnector,
  type TestServer,
  tableResolver,
} from './ssrf-helpers.js';

let receiver: TestServer; // 127.0.0.1, allowed
let canary4: TestServer; // 127.0.0.2, same port as the receiver
let canary6: TestServer | undefined; // ::1
let ipv6Skip: string | false = false;
let bigBytesWritten = 0;

const allowList = parseAllowList('127.0.0.1/32');
let rebindCalls = 0;
const { resolver, calls } = tableResolver({
  'receiver.test': ['127.0.0.1'],
  'canary.test': ['127.0.0.2'],
  'canary6.test': ['::1'],
  localhost: ['127.0.0.1', '::1'],
  'both.test': ['127.0.0.1', '127.0.0.2'],
  // answers the allowed address at the first lookup, the canary afterwards
  'rebind.test': () => (++rebindCalls === 1 ? ['127.0.0.1'] : ['127.0.0.2']),
});
const conn = loopbackOnlyConnector({ timeout: 2_000 });
let guard: GuardedDispatcher;

function receiverHandler(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) {
  req.resume();
  const path = req.url ?? '/';
  if (path === '/redirect-canary') {
    res.writeHead(302, { location: `http://127.0.0.2:${canary4.port}/landed` }).end();
  } else if (path === '/redirect-self') {
    res.writeHead(307, { location: '/landed' }).end();
  } else if (path === '/big') {
    // An endless body: only backpressure stops it, so reading it whole would never finish.
    res.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = Buffer.alloc(16 * 1024, 'x');
    const pump = () => {
      while (!res.destroyed && res.write(chunk)) bigBytesWritten += chunk.length;
      if (!res.destroyed) res.once('drain', pump);
    };
    res.on('close', () => res.removeAllListeners('drain'));
    pump();
  } else if (path === '/split-utf8') {
    // "é" (C3 A9) cut across two writes: decoded once, from the whole body, not chunk by chunk.
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write(Buffer.from([0x61, 0xc3]));
    setTimeout(() => res.end(Buffer.from([0xa9, 0x62])), 20);
  } else if (path === '/stall-body') {
    // the status and part of the body, then nothing
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
    res.write('partial');
  } else if (path === '/cut-body') {
    // part of the body, then the connection dropped
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
    res.write('partial', () => setTimeout(() => res.socket?.destroy(), 20));
  } else if (path === '/hang') {
    // accept, never answer
  } else if (path === '/close') {
    res.writeHead(200, { connection: 'close' }).end('closing');
  } else {
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`hello ${req.headers.host}`);
  }
}

before(async () => {
  receiver = await listen('127.0.0.1', 0, receiverHandler);
  canary4 = await listen('127.0.0.2', receiver.port);
  if (await ipv6LoopbackAvailable()) canary6 = await listen('::1', 0);
  else ipv6Skip = 'this host cannot listen on ::1 (IPv6 disabled)';
  guard = createGuardedDispatcher({
    allowList,
    allowHttp: true,
    resolver,
    connector: conn.connect,
    connectTimeoutMs: 1_000,
    timeoutMs: 2_000,
  });
});

after(async () => {
  await guard.close();
  await Promise.all([receiver.close(), canary4.close(), canary6?.close()]);
  assert.deepEqual(conn.refused, [], 'no connection outside loopback was even attempted');
});

describe('canaries outside the allow-list see nothing', () => {
  const cases4 = (p: number) => [
    `http://127.0.0.2:${p}/`,
    `http://2130706434:${p}/`,
    `http://0x7f000002:${p}/`,
    `http://0x7f.0.0.2:${p}/`,
    `http://0177.0.0.2:${p}/`,
    `http://127.0.2:${p}/`,
    `http://127.0.0.2.:${p}/`,
    `http://[::ffff:127.0.0.2]:${p}/`,
    `http://[::ffff:7f00:2]:${p}/`,
    `http://canary.test:${p}/`,
    `http://both.test:${p}/`,
    `http://localhost:${p}/`,
  ];
  test('IPv4 canary on 127.0.0.2, every spelling', async () => {
    for (const url of cases4(canary4.port)) {
      await assert.rejects(guardedPost(guard, url, { body: '{}' }), { code: 'ssrf_blocked' }, url);
    }
    assert.deepEqual(canary4.hits, []);
    assert.ok(!conn.connected.includes('127.0.0.2'));
  });

  test('IPv6 canary on [::1]', { skip: ipv6Skip }, async () => {
    const p = canary6!.port;
    for (const url of [`http://[::1]:${p}/`, `http://[0:0:0:0:0:0:0:1]:${p}/`, `http://canary6.test:${p}/`]) {
      await assert.rejects(guardedPost(guard, url, { body: '{}' }), { code: 'ssrf_blocked' }, url);
    }
    assert.deepEqual(canary6!.hits, []);
  });

  test('the allowed receiver on 127.0.0.1 receives, by IP and by name', async () => {
    const byIp = await guardedPost(guard, `http://127.0.0.1:${receiver.port}/in`, { body: '{}' });
    assert.equal(byIp.status, 200);
    const byName = await guardedPost(guard, `http://receiver.test:${receiver.port}/in`, { body: '{}' });
    assert.equal(byName.status, 200);
    // the Host header keeps the registered name; only the socket uses the checked IP
    assert.equal(byName.bodyExcerpt, `hello receiver.test:${receiver.port}`);
    assert.equal(typeof byName.durationMs, 'number');
    assert.deepEqual(canary4.hits, []);
  });
});

test('DNS rebinding cannot steer the connection to the canary', async () => {
  const g = createGuardedDispatcher({ allowList, allowHttp: true, resolver, connector: conn.connect });
  try {
    const before = conn.connected.length;
    // /close makes the receiver drop the connection, so the next request needs a new one
    const first = await guardedPost(g, `http://rebind.test:${receiver.port}/close`, { body: '{}' });
    assert.equal(first.status, 200);
    await assert.rejects(guardedPost(g, `http://rebind.test:${receiver.port}/close`, { body: '{}' }), {
      code: 'ssrf_blocked',
    });
    assert.deepEqual(conn.connected.slice(before), ['127.0.0.1'], 'connected only to the checked address');
    assert.equal(calls.get('rebind.test'), 2, 'one lookup per connection');
    assert.deepEqual(canary4.hits, []);
  } finally {
    await g.close();
  }
});

test('a 302 is returned as a 302 and its Location is not followed', async () => {
  const r = await guardedPost(guard, `http://127.0.0.1:${receiver.port}/redirect-canary`, { body: '{}' });
  assert.equal(r.status, 302);
  assert.equal(r.headers.location, `http://127.0.0.2:${canary4.port}/landed`);
  const r2 = await guardedPost(guard, `http://127.0.0.1:${receiver.port}/redirect-self`, { body: '{}' });
  assert.equal(r2.status, 307);
  assert.deepEqual(canary4.hits, []);
  assert.ok(!receiver.hits.some((h) => h.url === '/landed'));
});

test('a body larger than the cap is truncated and the rest is not read', async () => {
  const r = await guardedPost(guard, `http://127.0.0.1:${receiver.port}/big`, { maxResponseBytes: 1000 });
  assert.equal(r.status, 200);
  assert.equal(r.bodyExcerpt.length, 1000);
  assert.equal(r.truncated, true);
  // the server writes until backpressure stops it; socket buffers hold a few MiB at most
  assert.ok(bigBytesWritten < 32 * 1024 * 1024, `${bigBytesWritten} bytes written`);
  const small = await guardedPost(guard, `http://127.0.0.1:${receiver.port}/in`);
  assert.equal(small.truncated, false);
});

test('a body that arrives in pieces is decoded whole (a character split across chunks survives)', async () => {
  const r = await guardedPost(guard, `http://127.0.0.1:${receiver.port}/split-utf8`);
  assert.equal(r.bodyExcerpt, 'aéb');
  assert.equal(r.truncated, false);
});

test('a body that stops midway is a timeout; one cut off is a connection_error', async () => {
  const started = Date.now();
  await assert.rejects(
    guardedPost(guard, `http://127.0.0.1:${receiver.port}/stall-body`, { timeoutMs: 150 }),
    { code: 'timeout' },
  );
  assert.ok(Date.now() - started < 1_500);
  await assert.rejects(guardedPost(guard, `http://127.0.0.1:${receiver.port}/cut-body`), {
    code: 'connection_error',
  });
  // the guard still delivers afterwards
  assert.equal((await guardedPost(guard, `http://127.0.0.1:${receiver.port}/in`)).status, 200);
});

test('a server that never answers is a timeout', async () => {
  const started = Date.now();
  await assert.rejects(guardedPost(guard, `http://127.0.0.1:${receiver.port}/hang`, { timeoutMs: 150 }), {
    code: 'timeout',
  });
  assert.ok(Date.now() - started < 1_500);
});

test("the caller's signal aborts an attempt waiting for its answer, and one aborted before it starts", async () => {
  const controller = new AbortController();
  const started = Date.now();
  const pending = guardedPost(guard, `http://127.0.0.1:${receiver.port}/hang`, {
    timeoutMs: 10_000,
    signal: controller.signal,
  });
  setTimeout(() => controller.abort(), 100);
  await assert.rejects(pending, { code: 'timeout' });
  assert.ok(Date.now() - started < 1_500, 'aborted long before its own timeout');
  await assert.rejects(
    guardedPost(guard, `http://127.0.0.1:${receiver.port}/in`, { signal: AbortSignal.abort() }),
    { code: 'timeout' },
  );
  // the guard still delivers afterwards
  assert.equal((await guardedPost(guard, `http://127.0.0.1:${receiver.port}/in`)).status, 200);
});

describe('connect failures', () => {
  let silent: TcpServer;
  const silentSockets = new Set<import('node:net').Socket>();
  let silentPort = 0;
  let closedPort = 0;
  before(async () => {
    // accepts TCP but never speaks TLS: the handshake cannot complete
    silent = createTcpServer((socket) => {
      silentSockets.add(socket);
      socket.resume(); // discard the ClientHello so the client's FIN is seen
      socket.on('close', () => silentSockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentPort = (silent.address() as { port: number }).port;
    const tmp = await listen('127.0.0.1', 0);
    closedPort = tmp.port;
    await tmp.close();
  });
  after(async () => {
    await new Promise<void>((resolve) => {
      for (const s of silentSockets) s.destroy();
      silent.close(() => resolve());
    });
  });

  test('a TLS handshake that never completes is connect_timeout', async () => {
    const g = createGuardedDispatcher({
      allowList,
      resolver,
      connector: conn.connect,
      connectTimeoutMs: 150,
    });
    try {
      await assert.rejects(guardedPost(g, `https://127.0.0.1:${silentPort}/`), { code: 'connect_timeout' });
      // the guard destroys the half-open connection rather than leaving it to linger
      await Promise.all([...silentSockets].map((s) => once(s, 'close')));
      assert.equal(silentSockets.size, 0);
    } finally {
      await g.close();
    }
  });

  test('a connector that never calls back is connect_timeout', async () => {
    const g = createGuardedDispatcher({
      allowList,
      resolver,
      connector: () => {},
      connectTimeoutMs: 100,
    });
    try {
      await assert.rejects(guardedPost(g, 'https://receiver.test/'), { code: 'connect_timeout' });
    } finally {
      await g.close();
    }
  });

  test('a resolver that never answers is dns_failed within the connect budget', async () => {
    const g = createGuardedDispatcher({
      resolver: () => new Promise(() => {}),
      connector: conn.connect,
      connectTimeoutMs: 100,
    });
    try {
      await assert.rejects(guardedPost(g, 'https://slow.test/'), (e: unknown) => {
        const code = (e as { code?: string }).code;
        return code === 'dns_failed' || code === 'connect_timeout';
      });
    } finally {
      await g.close();
    }
  });

  test('a refused connection is connection_error', async () => {
    await assert.rejects(guardedPost(guard, `http://127.0.0.1:${closedPort}/`), { code: 'connection_error' });
  });
});
