// With an egress proxy, the guard still resolves and checks the target and asks the proxy to
// CONNECT to the checked IP, never to the name. The test proxy tunnels to loopback only.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { createGuardedDispatcher, type GuardedDispatcher, guardedPost, parseAllowList } from '../src/ssrf.js';
import { isLoopback, listen, type TestServer, tableResolver } from './ssrf-helpers.js';

let receiver: TestServer;
let canary: TestServer;
let proxy: Server;
let proxyPort = 0;
const connects: string[] = [];
const sockets = new Set<Socket>();
let guard: GuardedDispatcher;

before(async () => {
  receiver = await listen('127.0.0.1', 0, (req, res) => res.end(`hello ${req.headers.host}`));
  canary = await listen('127.0.0.2', receiver.port);
  proxy = createServer((_req, res) => res.writeHead(405).end());
  proxy.on('connect', (req, clientSocket: Socket, head: Buffer) => {
    const target = req.url ?? '';
    connects.push(target);
    sockets.add(clientSocket);
    const colon = target.lastIndexOf(':');
    const host = target.slice(0, colon).replace(/^\[|\]$/g, '');
    if (!isLoopback(host)) {
      clientSocket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = connect(Number(target.slice(colon + 1)), host, () => {
      clientSocket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(clientSocket);
      clientSocket.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('error', () => clientSocket.destroy());
    clientSocket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyPort = (proxy.address() as AddressInfo).port;
  const { resolver } = tableResolver({ 'receiver.test': ['127.0.0.1'], 'canary.test': ['127.0.0.2'] });
  guard = createGuardedDispatcher({
    allowList: parseAllowList('127.0.0.1/32'),
    allowHttp: true,
    resolver,
    proxy: `http://127.0.0.1:${proxyPort}`,
    connectTimeoutMs: 1_000,
    timeoutMs: 2_000,
  });
});

after(async () => {
  await guard.close();
  for (const s of sockets) s.destroy();
  proxy.closeAllConnections();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await Promise.all([receiver.close(), canary.close()]);
});

test('the proxy is asked to CONNECT to the checked IP; Host keeps the name', async () => {
  const r = await guardedPost(guard, `http://receiver.test:${receiver.port}/in`, { body: '{}' });
  assert.equal(r.status, 200);
  assert.equal(r.bodyExcerpt, `hello receiver.test:${receiver.port}`);
  assert.deepEqual(connects, [`127.0.0.1:${receiver.port}`]);
});

test('a blocked target never reaches the proxy', async () => {
  const before = connects.length;
  for (const url of [
    `http://canary.test:${canary.port}/`,
    `http://127.0.0.2:${canary.port}/`,
    `http://[::1]:${canary.port}/`,
  ]) {
    await assert.rejects(guardedPost(guard, url), { code: 'ssrf_blocked' }, url);
  }
  assert.equal(connects.length, before);
  assert.deepEqual(canary.hits, []);
});

test('connector and proxy cannot be combined', () => {
  assert.throws(
    () => createGuardedDispatcher({ proxy: 'http://127.0.0.1:1', connector: () => {} }),
    TypeError,
  );
});
