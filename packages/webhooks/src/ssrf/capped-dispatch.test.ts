// dispatchCapped against a loopback server: what it keeps of an answer, and that it leaves no
// listener on the signal it was given (the guard shares one signal among every attempt started in
// the same 50 ms: a listener left per attempt would pile up on it).
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { Pool } from 'undici';
import { dispatchCapped } from './capped-dispatch.js';

let server: Server;
let pool: Pool;
let origin = '';

before(async () => {
  server = createServer((req, res) => {
    req.resume();
    if (req.url === '/big') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('x'.repeat(100_000));
    } else if (req.url === '/hang') {
      // never answers
    } else {
      res.writeHead(202, { 'retry-after': '7' });
      res.end('ok');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  pool = new Pool(origin, { connections: 4 });
});
after(async () => {
  await pool.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const post = (path: string, signal: AbortSignal, max = 1000) =>
  dispatchCapped(pool, { origin, path, method: 'POST', headers: {}, body: '{}' }, signal, max);

test('status, headers and body are returned; a body over the cap is cut there', async () => {
  const signal = new AbortController().signal;
  const r = await post('/in', signal);
  assert.deepEqual([r.status, r.headers['retry-after'], r.bodyExcerpt, r.truncated], [202, '7', 'ok', false]);
  const big = await post('/big', signal, 1000);
  assert.deepEqual([big.status, big.bodyExcerpt.length, big.truncated], [200, 1000, true]);
  // the connection cut at the cap does not break the next attempt
  assert.equal((await post('/in', signal)).status, 202);
});

test('no listener is left on the shared signal, whatever ended the attempt', async () => {
  const controller = new AbortController();
  await Promise.all(
    Array.from({ length: 20 }, (_, i) => post(i % 4 === 0 ? '/big' : '/in', controller.signal)),
  );
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  const hanging = post('/hang', controller.signal);
  assert.equal(getEventListeners(controller.signal, 'abort').length, 1);
  controller.abort(new Error('stop'));
  await assert.rejects(hanging, /stop/);
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
});
