import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { deadline } from '../src/fastify.js';
import { createFetch } from '../src/index.js';
import { startServer } from './server.js';

// The server side of deadline propagation, on a real Fastify listening on 127.0.0.1, port 0.

describe('Fastify deadline plugin', () => {
  let app: FastifyInstance;
  let base: string;
  let handlerRuns = 0;
  let lateFinished = 0;
  const SLOW_MS = 1500;
  const logs: string[] = [];
  let downstream: Awaited<ReturnType<typeof startServer>>;
  const fetch = createFetch({ baseDelayMs: 5, maxDelayMs: 20 });

  before(async () => {
    downstream = await startServer((_req, res) => {
      res.writeHead(200).end('inventory');
    });
    const stream = new Writable({
      write(chunk, _encoding, callback) {
        logs.push(String(chunk));
        callback();
      },
    });
    app = Fastify({ logger: { level: 'warn', stream } });
    await app.register(deadline, { reserveMs: 0 });
    app.get('/info', async (request) => {
      handlerRuns++;
      return {
        budgetMs: request.deadline?.budgetMs ?? null,
        remaining: request.deadline?.remaining() ?? null,
      };
    });
    app.get('/slow', async (request) => {
      handlerRuns++;
      // Work that ignores the signal: its late answer must be dropped quietly. Far longer than the
      // deadlines sent to it, so "answered at the deadline" and "answered when the work was done"
      // stay apart on a loaded CI machine.
      await new Promise((resolve) => setTimeout(resolve, SLOW_MS));
      lateFinished++;
      return { done: true, aborted: request.deadline?.signal.aborted ?? null };
    });
    app.get('/cooperative', async (request, reply) => {
      await new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, 5000);
        request.deadline?.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(request.deadline!.signal.reason);
        });
      });
      return reply.send('never');
    });
    app.get('/chain', async (request) => {
      // Forwards what is left of the caller's deadline to the next hop.
      const res = await fetch(`${downstream.url}/stock`, { deadlineMs: request.deadline?.remaining() });
      return { body: await res.text() };
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });

  after(async () => {
    await fetch.close();
    await app.close();
    await downstream.close();
  });

  test('exposes the caller’s budget to the handler', async () => {
    const res = await fetch(`${base}/info`, { headers: { 'surety-timeout-ms': '5000' } });
    const body = (await res.json()) as { budgetMs: number; remaining: number };
    // The client adds its own value too (its attempt timeout, 10 s): the server takes the smallest.
    assert.equal(body.budgetMs, 5000);
    assert.ok(body.remaining > 4000 && body.remaining <= 5000);
  });

  test('no header: no deadline, the request is left alone', async () => {
    const raw = createFetch({ deadlineHeader: false });
    try {
      const res = await raw(`${base}/info`);
      assert.deepEqual(await res.json(), { budgetMs: null, remaining: null });
    } finally {
      await raw.close();
    }
  });

  test('0 ms left: answered 504 at once, the handler never runs', async () => {
    const before = handlerRuns;
    const res = await fetch(`${base}/info`, { headers: { 'surety-timeout-ms': '0' }, maxAttempts: 1 });
    assert.equal(res.status, 504);
    assert.match(String(res.headers.get('content-type')), /^application\/problem\+json/);
    assert.equal(((await res.json()) as { code: string }).code, 'deadline_exceeded');
    assert.equal(handlerRuns, before);
  });

  test('deadline passes mid-handler: 504 problem+json on time; the late answer is dropped quietly', async () => {
    const raw = createFetch({ deadlineHeader: false, maxAttempts: 1 });
    try {
      const started = performance.now();
      const res = await raw(`${base}/slow`, { headers: { 'surety-timeout-ms': '100' } });
      const took = performance.now() - started;
      assert.equal(res.status, 504);
      assert.deepEqual(await res.json(), {
        type: 'https://surety.dev/problems/deadline-exceeded',
        title: 'Deadline exceeded',
        status: 504,
        detail:
          'The caller stops waiting after 100 ms (Surety-Timeout-Ms); no complete answer was ready by then.',
        code: 'deadline_exceeded',
        instance: '/slow',
      });
      assert.ok(
        took >= 95 && took < 1000,
        `answered after ${took} ms, not after the handler's ${SLOW_MS} ms`,
      );
      const finished = lateFinished;
      for (let waited = 0; lateFinished === finished && waited < SLOW_MS * 4; waited += 20) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(lateFinished, finished + 1, 'the handler did finish, later');
      assert.ok(!logs.some((line) => line.includes('FST_ERR_REP_ALREADY_SENT')), logs.join('\n'));
    } finally {
      await raw.close();
    }
  });

  test('the signal aborts with DeadlineExceededError for handlers that listen', async () => {
    const raw = createFetch({ deadlineHeader: false, maxAttempts: 1 });
    try {
      const res = await raw(`${base}/cooperative`, { headers: { 'surety-timeout-ms': '50' } });
      assert.equal(res.status, 504);
      assert.ok(!logs.some((line) => line.includes('FST_ERR_REP_ALREADY_SENT')), logs.join('\n'));
    } finally {
      await raw.close();
    }
  });

  test('end to end: the client’s deadline reaches the server, which passes what is left downstream', async () => {
    const res = await fetch(`${base}/chain`, { deadlineMs: 2000 });
    assert.deepEqual(await res.json(), { body: 'inventory' });
    const sentDownstream = Number(downstream.seen.at(-1)!.headers['surety-timeout-ms']);
    assert.ok(sentDownstream > 0 && sentDownstream <= 2000, `downstream got ${sentDownstream} ms`);
  });

  test('end to end: a slow handler and a short client deadline', async () => {
    const client = createFetch({ deadlineMs: 150, random: () => 0.99 });
    try {
      const started = performance.now();
      const outcome = await client(`${base}/slow`).then(
        (res) => res.status,
        (error: unknown) => (error as { code?: string }).code,
      );
      const took = performance.now() - started;
      // Server and client give up at the same moment: either the 504 arrives first, or the client's own
      // deadline fires. Either way the call ends at the deadline, not after the handler's SLOW_MS.
      assert.ok(outcome === 504 || outcome === 'SURETY_DEADLINE_EXCEEDED', String(outcome));
      assert.ok(took < 1000, `ended after ${took} ms`);
    } finally {
      await client.close();
    }
  });
});
