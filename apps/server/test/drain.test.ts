// Closing the app (what SIGTERM does) with an answer whose bytes are still leaving: Node's
// server.close() destroys every connection it deems idle, and one whose response has ended counts
// as idle even while most of that response still waits in the socket's buffer (a large answer, a
// client reading slowly). PGlite and PostgreSQL.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { test } from 'node:test';
import Fastify from 'fastify';
import { flushAnswersOnClose } from '../src/drain.js';
import { auth, createTestApp } from './helpers.js';

const SIZE = 32 * 1024 * 1024; // more than the loopback's socket buffers hold

test('an answer still flushing when the app closes reaches the client whole', {
  timeout: 60_000,
}, async () => {
  const t = await createTestApp({
    setup: (app) => {
      app.get('/test/large', { config: { public: true } }, async (_request, reply) =>
        reply.header('content-type', 'application/octet-stream').send(Buffer.alloc(SIZE, 120)),
      );
    },
  });
  try {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => {});
    const first = new Promise<void>((resolve) =>
      socket.on('data', (chunk) => {
        chunks.push(chunk);
        // The first bytes: the server has ended its answer (one send); the client stops reading.
        if (chunks.length === 1) {
          socket.pause();
          resolve();
        }
      }),
    );
    socket.write(
      `GET /test/large HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${auth('acme').authorization}\r\n\r\n`,
    );
    await first;
    const closing = t.app.close();
    await new Promise((r) => setTimeout(r, 200));
    socket.resume();
    await closed;
    await closing;
    const all = Buffer.concat(chunks);
    const head = all.indexOf('\r\n\r\n');
    assert.match(all.subarray(0, head).toString(), /^HTTP\/1\.1 200 /);
    assert.equal(all.length - head - 4, SIZE, 'the whole body arrived');
  } finally {
    await t.db.close();
  }
});

test('a client that stops reading holds the close for the bound, no longer', {
  timeout: 30_000,
}, async () => {
  const app = Fastify();
  flushAnswersOnClose(app, 300);
  app.get('/large', async (_request, reply) => reply.send(Buffer.alloc(SIZE, 120)));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  const first = new Promise<void>((resolve) => socket.once('data', () => resolve()));
  socket.write('GET /large HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  await first;
  socket.pause(); // and never reads again
  const started = Date.now();
  await app.close();
  const took = Date.now() - started;
  assert.ok(took >= 290 && took < 5000, `closed after ${took} ms`);
  socket.destroy();
});
