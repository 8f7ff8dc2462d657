import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { Agent } from 'undici';
import {
  AttemptTimeoutError,
  createFetch,
  DeadlineExceededError,
  type GiveUpEvent,
  type RetryEvent,
} from '../src/index.js';
import { closedPort, startServer } from './server.js';

// Against real HTTP servers on 127.0.0.1 (port 0). Backoffs are kept tiny (base 5 ms) so the file runs in
// a few seconds; the two Retry-After tests wait their one second for real.

const fast = { baseDelayMs: 5, maxDelayMs: 20 };
type Server = Awaited<ReturnType<typeof startServer>>;
const servers: Server[] = [];
const clients: { close(): Promise<void> }[] = [];

async function server(handler: Parameters<typeof startServer>[0]): Promise<Server> {
  const s = await startServer(handler);
  servers.push(s);
  return s;
}

function client(options: Parameters<typeof createFetch>[0] = {}) {
  const fetch = createFetch({ ...fast, ...options });
  clients.push(fetch);
  return fetch;
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('against a local server', () => {
  test('retries a 503, then succeeds; sends the attempt number and the time left', async () => {
    const s = await server((_req, res, n) => {
      res.writeHead(n === 1 ? 503 : 200).end(n === 1 ? 'busy' : 'ok');
    });
    const fetch = client({ deadlineMs: 5000 });
    const res = await fetch(`${s.url}/thing`);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'ok');
    assert.deepEqual(
      s.seen.map((r) => r.headers['surety-attempt']),
      ['1', '2'],
    );
    for (const r of s.seen) {
      const left = Number(r.headers['surety-timeout-ms']);
      assert.ok(left > 0 && left <= 5000, `Surety-Timeout-Ms ${left}`);
    }
  });

  test('Retry-After in seconds: the retry does not come earlier', async () => {
    const arrivals: number[] = [];
    const s = await server((_req, res, n) => {
      arrivals.push(performance.now());
      if (n === 1) res.writeHead(503, { 'retry-after': '1' }).end();
      else res.writeHead(200).end();
    });
    const fetch = client();
    assert.equal((await fetch(s.url)).status, 200);
    assert.ok(arrivals[1]! - arrivals[0]! >= 995, `waited ${arrivals[1]! - arrivals[0]!} ms`);
  });

  test('Retry-After as an HTTP-date: the retry does not come earlier', async () => {
    // The client's wall clock is pinned so the date is exactly one second ahead of it.
    const now = Date.parse('Tue, 15 Nov 1994 08:12:31 GMT');
    const arrivals: number[] = [];
    const s = await server((_req, res, n) => {
      arrivals.push(performance.now());
      if (n === 1) res.writeHead(429, { 'retry-after': 'Tue, 15 Nov 1994 08:12:32 GMT' }).end();
      else res.writeHead(200).end();
    });
    const retries: RetryEvent[] = [];
    const fetch = client({ wallClock: () => now, onRetry: (e) => retries.push(e) });
    assert.equal((await fetch(s.url)).status, 200);
    assert.equal(retries[0]!.retryAfterMs, 1000);
    assert.ok(arrivals[1]! - arrivals[0]! >= 995, `waited ${arrivals[1]! - arrivals[0]!} ms`);
  });

  test('a POST without an Idempotency-Key is not retried', async () => {
    const s = await server((_req, res) => {
      res.writeHead(503).end();
    });
    const giveUps: GiveUpEvent[] = [];
    const fetch = client({ onGiveUp: (e) => giveUps.push(e) });
    const res = await fetch(`${s.url}/v1/payments`, { method: 'POST', body: '{"amount":100}' });
    assert.equal(res.status, 503);
    assert.equal(s.seen.length, 1);
    assert.equal(giveUps[0]!.reason, 'method');
  });

  test('a POST with idempotencyKey "auto" is retried with the same key and the same bytes', async () => {
    const s = await server((_req, res, n) => {
      res.writeHead(n < 3 ? 503 : 201).end();
    });
    const fetch = client({ idempotencyKey: 'auto' });
    const res = await fetch(`${s.url}/v1/payments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"amount":100}',
    });
    assert.equal(res.status, 201);
    assert.equal(s.seen.length, 3);
    const keys = s.seen.map((r) => r.headers['idempotency-key']);
    assert.match(String(keys[0]), /^[0-9a-f-]{36}$/);
    assert.deepEqual(keys, [keys[0], keys[0], keys[0]]);
    assert.deepEqual(
      s.seen.map((r) => r.body.toString()),
      ['{"amount":100}', '{"amount":100}', '{"amount":100}'],
    );
  });

  test('a FormData body is replayed byte-identical (the same multipart boundary)', async () => {
    const s = await server((_req, res, n) => {
      res.writeHead(n === 1 ? 503 : 201).end();
    });
    const fetch = client({ idempotencyKey: 'auto' });
    const form = new FormData();
    form.append('note', 'hello');
    form.append('file', new Blob(['abc'], { type: 'text/plain' }), 'a.txt');
    assert.equal((await fetch(`${s.url}/upload`, { method: 'POST', body: form })).status, 201);
    assert.equal(s.seen.length, 2);
    assert.match(String(s.seen[0]!.headers['content-type']), /^multipart\/form-data; boundary=/);
    assert.equal(s.seen[0]!.headers['content-type'], s.seen[1]!.headers['content-type']);
    assert.ok(s.seen[0]!.body.equals(s.seen[1]!.body));
    assert.match(s.seen[0]!.body.toString(), /hello/);
  });

  test('400 is not retried', async () => {
    const s = await server((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/problem+json' }).end('{"title":"bad"}');
    });
    const fetch = client();
    const res = await fetch(s.url, { method: 'PUT', body: 'x' });
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), { title: 'bad' });
    assert.equal(s.seen.length, 1);
  });

  test('deadline reached mid-backoff: gives up at once instead of sleeping past it', async () => {
    const s = await server((_req, res) => {
      res.writeHead(503).end();
    });
    const giveUps: GiveUpEvent[] = [];
    // The backoff (~10 s) would end past the deadline (3 s): the 503 comes back at once, well
    // before the deadline, however slow the machine.
    const fetch = client({
      baseDelayMs: 10_000,
      maxDelayMs: 20_000,
      random: () => 0.99,
      deadlineMs: 3000,
      onGiveUp: (e) => giveUps.push(e),
    });
    const started = performance.now();
    const res = await fetch(s.url);
    const took = performance.now() - started;
    assert.equal(res.status, 503);
    assert.equal(s.seen.length, 1);
    assert.equal(giveUps[0]!.reason, 'deadline');
    assert.ok(took < 2500, `returned after ${took} ms`);
  });

  test('deadline reached while the server is still working: DeadlineExceededError on time', async () => {
    const s = await server((req, res) => {
      const timer = setTimeout(() => res.writeHead(200).end(), 5000);
      req.socket.on('close', () => clearTimeout(timer));
    });
    const fetch = client({ deadlineMs: 200 });
    const started = performance.now();
    await assert.rejects(fetch(s.url), DeadlineExceededError);
    const took = performance.now() - started;
    assert.ok(took >= 195 && took < 1000, `rejected after ${took} ms`);
    assert.ok(Number(s.seen[0]!.headers['surety-timeout-ms']) <= 200);
  });

  test('abort during backoff: rejects at once with the signal’s reason', async () => {
    const s = await server((_req, res) => {
      res.writeHead(503, { 'retry-after': '5' }).end();
    });
    const controller = new AbortController();
    // Aborted once the backoff (5 s, from Retry-After) has begun, whenever that is.
    const fetch = client({ onRetry: () => setTimeout(() => controller.abort(), 20) });
    const started = performance.now();
    const pending = fetch(s.url, { signal: controller.signal });
    await assert.rejects(pending, { name: 'AbortError' });
    const took = performance.now() - started;
    assert.ok(took < 1000, `rejected after ${took} ms`);
    assert.equal(s.seen.length, 1);
  });

  test('abort during an attempt: rejects at once, nothing retried', async () => {
    const controller = new AbortController();
    const s = await server((req, res) => {
      const timer = setTimeout(() => res.writeHead(200).end(), 5000);
      req.socket.on('close', () => clearTimeout(timer));
      // The server has the request and is working on it: abort now (a timer started with the call
      // could fire before the request arrives, on a loaded machine).
      controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    });
    const fetch = client();
    const started = performance.now();
    const pending = fetch(s.url, { signal: controller.signal });
    await assert.rejects(pending, { name: 'TimeoutError' });
    const took = performance.now() - started;
    assert.ok(took < 1000, `rejected after ${took} ms`);
    assert.equal(s.seen.length, 1);
  });

  test('abort after the response: reading the body stops, with either kind of attempt timing', async () => {
    const s = await server((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first chunk');
      const timer = setTimeout(() => res.end(), 5000);
      req.socket.on('close', () => clearTimeout(timer));
    });
    const dispatcher = new Agent();
    try {
      // The client's own Agent (no signal of the client's), and a dispatcher passed in (the caller's signal
      // forwarded into a controller of the client's).
      for (const fetch of [client(), client({ dispatcher })]) {
        const controller = new AbortController();
        const res = await fetch(s.url, { signal: controller.signal });
        assert.equal(res.status, 200);
        const reading = res.text();
        setTimeout(() => controller.abort(), 20);
        await assert.rejects(reading, { name: 'AbortError' });
      }
    } finally {
      await dispatcher.close();
    }
  });

  test('attempt timeout: a hung attempt is abandoned and retried', async () => {
    const s = await server((req, res, n) => {
      if (n > 1) return void res.writeHead(200).end('second');
      const timer = setTimeout(() => res.writeHead(200).end('first'), 5000);
      req.socket.on('close', () => clearTimeout(timer));
    });
    const retries: RetryEvent[] = [];
    // The client's own Agent times this attempt (headersTimeout); the error is the same either way.
    const fetch = client({ attemptTimeoutMs: 100, onRetry: (e) => retries.push(e) });
    const res = await fetch(s.url);
    assert.equal(await res.text(), 'second');
    assert.equal(s.seen[0]!.headers['surety-timeout-ms'], '100');
    assert.ok(retries[0]!.error instanceof AttemptTimeoutError, String(retries[0]!.error));
    assert.equal((retries[0]!.error as AttemptTimeoutError).code, 'SURETY_ATTEMPT_TIMEOUT');
  });

  test('connection reset: retried', async () => {
    const s = await server((req, res, n) => {
      if (n === 1) req.socket.destroy();
      else res.writeHead(200).end();
    });
    const fetch = client();
    assert.equal((await fetch(s.url)).status, 200);
    assert.equal(s.seen.length, 2);
  });

  test('connection refused: retried up to maxAttempts, then the error as undici raised it', async () => {
    const port = await closedPort();
    const retries: RetryEvent[] = [];
    const giveUps: GiveUpEvent[] = [];
    const fetch = client({ onRetry: (e) => retries.push(e), onGiveUp: (e) => giveUps.push(e) });
    await assert.rejects(fetch(`http://127.0.0.1:${port}/`), (error: unknown) => {
      assert.ok(error instanceof TypeError);
      assert.equal((error.cause as { code?: string }).code, 'ECONNREFUSED');
      return true;
    });
    assert.equal(retries.length, 3);
    assert.equal(giveUps[0]!.reason, 'max-attempts');
  });

  test('DNS failure (an injected connector, no real lookup): retried', async () => {
    let connects = 0;
    const dispatcher = new Agent({
      connect: (_options, callback) => {
        connects++;
        callback(
          Object.assign(new Error('getaddrinfo ENOTFOUND surety-test.invalid'), { code: 'ENOTFOUND' }),
          null,
        );
      },
    });
    const fetch = client({ dispatcher });
    await assert.rejects(fetch('http://surety-test.invalid/'), (error: unknown) => {
      assert.equal(((error as Error).cause as { code?: string }).code, 'ENOTFOUND');
      return true;
    });
    assert.equal(connects, 4);
    await dispatcher.close();
  });
});

describe('retry storm', () => {
  let failing = true;
  let s: Server;
  before(async () => {
    s = await startServer((_req, res, _n) => {
      if (failing) res.writeHead(503).end();
      else res.writeHead(200).end();
    });
  });
  after(async () => {
    await s.close();
  });

  async function run(fetch: ReturnType<typeof createFetch>, calls: number, concurrency: number) {
    let next = 0;
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < calls) {
          next++;
          const res = await fetch(`${s.url}/storm`);
          await res.arrayBuffer();
          statuses.push(res.status);
        }
      }),
    );
    return statuses;
  }

  test('1,000 calls against a server failing 100 %: attempts ≤ 1,000 × 1.1 + the floor; it refills', async () => {
    const giveUps: GiveUpEvent[] = [];
    const fetch = createFetch({ baseDelayMs: 1, maxDelayMs: 2, onGiveUp: (e) => giveUps.push(e) });
    try {
      const started = performance.now();
      const statuses = await run(fetch, 1000, 50);
      const seconds = (performance.now() - started) / 1000;
      const attempts = s.seen.length;
      // The floor: the bucket's starting 10 tokens plus 1 per second of the storm (the defaults).
      const floor = 10 + Math.ceil(seconds) * 1;
      console.log(
        `storm: ${attempts} attempts for 1000 calls in ${seconds.toFixed(2)} s (bound ${1100 + floor})`,
      );
      assert.equal(statuses.length, 1000);
      assert.ok(
        statuses.every((st) => st === 503),
        'every call returned the failure',
      );
      assert.ok(attempts <= 1000 * 1.1 + floor, `${attempts} attempts`);
      assert.ok(attempts >= 1050, `retries still happened within the budget: ${attempts}`);
      assert.ok(giveUps.filter((g) => g.reason === 'budget').length > 800);
      const budget = fetch.budgetFor(s.url)!;
      // Spent: what is left is at most what the floor (1 token a second) put back while the storm ran,
      // which on a loaded machine can take a few seconds.
      const secondsSince = (performance.now() - started) / 1000;
      assert.ok(budget.tokens < 1 + secondsSince, `the budget is spent: ${budget.tokens}`);

      // The origin recovers: successful calls refill the budget (0.1 each), retries are allowed again.
      failing = false;
      await run(fetch, 100, 10);
      assert.ok(budget.tokens >= 9.9, `refilled to ${budget.tokens}`);
      failing = true;
      const before = s.seen.length;
      await run(fetch, 1, 1);
      assert.equal(s.seen.length - before, 4, 'a failing call gets its retries back');
    } finally {
      await fetch.close();
    }
  });
});
