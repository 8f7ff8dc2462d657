import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import { getEventListeners } from 'node:events';
import { test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { RetryBudget } from './budget.js';
import { createFetch } from './client.js';
import { CHANNELS } from './diagnostics.js';
import { AttemptTimeoutError, CircuitOpenError, DeadlineExceededError } from './errors.js';
import type { GiveUpEvent, RetryEvent } from './events.js';
import type { FetchOptions, SuretyRequestInit, TransportInit } from './options.js';
import { createFakeClock, type FakeClock } from './testing.js';

// Unit tests of the retry loop: a scripted transport instead of a network, a fake clock that jumps over
// every wait, and a fixed random source (0.5, so the jittered wait before retry n is base * 2^n / 2).

type Step =
  | number
  | { status: number; headers?: Record<string, string> }
  | { error: string }
  | { hang: true }
  | { slow: number; status: number };

interface Sent {
  at: number;
  url: string;
  method: string | undefined;
  headers: Headers;
  body: unknown;
}

function scripted(clock: FakeClock, steps: Step[]) {
  const sent: Sent[] = [];
  let i = 0;
  const transport = async (url: string, init: TransportInit): Promise<Response> => {
    sent.push({
      at: clock.now(),
      url,
      method: init.method,
      headers: new Headers(init.headers as [string, string][]),
      body: init.body,
    });
    const step = steps[Math.min(i++, steps.length - 1)]!;
    if (typeof step === 'number') return new Response(`status ${step}`, { status: step });
    if ('error' in step) throw Object.assign(new TypeError('fetch failed'), { cause: { code: step.error } });
    if ('hang' in step || 'slow' in step) {
      return new Promise((resolve, reject) => {
        init.signal?.addEventListener('abort', () => reject(init.signal!.reason), { once: true });
        if ('slow' in step)
          clock.setTimeout(() => resolve(new Response(null, { status: step.status })), step.slow);
      });
    }
    return new Response(null, { status: step.status, headers: step.headers ?? {} });
  };
  return { transport, sent };
}

function setup(steps: Step[], options: FetchOptions = {}) {
  const clock = createFakeClock();
  const { transport, sent } = scripted(clock, steps);
  const retries: RetryEvent[] = [];
  const giveUps: GiveUpEvent[] = [];
  const fetch = createFetch({
    clock,
    wallClock: () => clock.wallNow(),
    random: () => 0.5,
    transport,
    onRetry: (e) => retries.push(e),
    onGiveUp: (e) => giveUps.push(e),
    ...options,
  });
  return { clock, fetch, sent, retries, giveUps };
}

const URL_ = 'http://127.0.0.1:9/thing';

test('step table: response → retried or not, the waits, the outcome', async () => {
  // responses in order → attempts made, waits before each retry (ms), final status, give-up reason
  const table: [string, Step[], number, number[], number | string, string | undefined][] = [
    ['200 at once', [200], 1, [], 200, undefined],
    ['503 then 200', [503, 200], 2, [100], 200, undefined],
    ['408 then 200', [408, 200], 2, [100], 200, undefined],
    ['429 then 200', [429, 200], 2, [100], 200, undefined],
    ['502 then 200', [502, 200], 2, [100], 200, undefined],
    ['504 then 200', [504, 200], 2, [100], 200, undefined],
    ['503 every time', [503], 4, [100, 200, 400], 503, 'max-attempts'],
    ['500 is not retried by default', [500, 200], 1, [], 500, undefined],
    ['501 never', [501, 200], 1, [], 501, undefined],
    ['400 never', [400, 200], 1, [], 400, undefined],
    ['404 never', [404, 200], 1, [], 404, undefined],
    ['409 never', [409, 200], 1, [], 409, undefined],
    ['connection reset', [{ error: 'ECONNRESET' }, 200], 2, [100], 200, undefined],
    ['connection refused', [{ error: 'ECONNREFUSED' }, 200], 2, [100], 200, undefined],
    ['DNS failure', [{ error: 'ENOTFOUND' }, { error: 'EAI_AGAIN' }, 200], 3, [100, 200], 200, undefined],
    ['connect timeout', [{ error: 'UND_ERR_CONNECT_TIMEOUT' }, 200], 2, [100], 200, undefined],
    ['refused every time', [{ error: 'ECONNREFUSED' }], 4, [100, 200, 400], 'ECONNREFUSED', 'max-attempts'],
    [
      'Retry-After 3 s is waited',
      [{ status: 503, headers: { 'retry-after': '3' } }, 200],
      2,
      [3000],
      200,
      undefined,
    ],
    [
      'Retry-After below the jitter',
      [{ status: 429, headers: { 'retry-after': '0' } }, 200],
      2,
      [100],
      200,
      undefined,
    ],
    [
      'Retry-After invalid: ignored',
      [{ status: 503, headers: { 'retry-after': 'soon' } }, 200],
      2,
      [100],
      200,
      undefined,
    ],
    [
      'Retry-After as an HTTP-date',
      [{ status: 503, headers: { 'retry-after': new Date(1_700_000_002_000).toUTCString() } }, 200],
      2,
      [2000],
      200,
      undefined,
    ],
    [
      'Retry-After past the deadline: given up at once',
      [{ status: 503, headers: { 'retry-after': '31' } }, 200],
      1,
      [],
      503,
      'retry-after',
    ],
    [
      'Retry-After of 400 digits: past the deadline, not ignored (issue 15, D7)',
      [{ status: 503, headers: { 'retry-after': '9'.repeat(400) } }, 200],
      1,
      [],
      503,
      'retry-after',
    ],
  ];
  for (const [name, steps, attempts, waits, outcome, reason] of table) {
    const { fetch, sent, retries, giveUps } = setup(steps);
    let result: number | string;
    try {
      result = (await fetch(URL_)).status;
    } catch (error) {
      result = ((error as Error).cause as { code: string }).code;
    }
    assert.equal(sent.length, attempts, `${name}: attempts`);
    assert.deepEqual(
      sent.slice(1).map((s, i) => s.at - sent[i]!.at),
      waits,
      `${name}: waits`,
    );
    assert.deepEqual(
      retries.map((r) => r.delayMs),
      waits,
      `${name}: onRetry delays`,
    );
    assert.equal(result, outcome, `${name}: outcome`);
    assert.equal(giveUps[0]?.reason, reason, `${name}: give-up reason`);
    await fetch.close();
  }
});

test('409 with Retry-After is retried only for a keyed request (the original is in flight)', async () => {
  const cases: [string, SuretyRequestInit, Step[], number, number[]][] = [
    [
      'keyed POST, 409 + Retry-After',
      { method: 'POST', body: '{}' },
      [{ status: 409, headers: { 'retry-after': '1' } }, 201],
      2,
      [1000],
    ],
    ['keyed POST, 409 without Retry-After (a conflict)', { method: 'POST', body: '{}' }, [409, 201], 1, []],
    [
      'GET without a key, 409 + Retry-After',
      {},
      [{ status: 409, headers: { 'retry-after': '1' } }, 200],
      1,
      [],
    ],
  ];
  for (const [name, init, steps, attempts, waits] of cases) {
    const { fetch, sent } = setup(steps, { idempotencyKey: 'auto' });
    await fetch(URL_, init);
    assert.equal(sent.length, attempts, `${name}: attempts`);
    assert.deepEqual(
      sent.slice(1).map((x, i) => x.at - sent[i]!.at),
      waits,
      `${name}: waits`,
    );
    await fetch.close();
  }
});

test('step table: the retry budget across calls (response → attempts, tokens left)', async () => {
  const clock = createFakeClock();
  const budget = new RetryBudget({ ratio: 0.5, minPerSecond: 0, maxTokens: 2, clock });
  const calls: [Step[], number, number, string | undefined][] = [
    // responses, attempts, tokens left after the call, give-up reason
    [[503, 503, 200], 3, 0, undefined], // starts with 2 (the deposit is capped), spends both
    [[503, 200], 1, 0.5, 'budget'], // 0.5 after the deposit: not enough for a retry
    [[200], 1, 1, undefined],
    [[503, 200], 2, 0.5, undefined], // 1.5 after the deposit, spends 1
    [[{ error: 'ECONNRESET' }, 200], 2, 0, undefined],
    [[{ error: 'ECONNRESET' }, 200], 1, 0.5, 'budget'],
  ];
  for (const [i, [steps, attempts, tokens, reason]] of calls.entries()) {
    const { transport, sent } = scripted(clock, steps);
    const giveUps: GiveUpEvent[] = [];
    const fetch = createFetch({
      clock,
      random: () => 0.5,
      transport,
      retryBudget: () => budget,
      onGiveUp: (e) => giveUps.push(e),
    });
    await fetch(URL_).catch(() => undefined);
    assert.equal(sent.length, attempts, `call ${i}: attempts`);
    assert.equal(budget.tokens, tokens, `call ${i}: tokens`);
    assert.equal(giveUps[0]?.reason, reason, `call ${i}: give-up`);
  }
});

test('the default budget is per origin, created on first use', async () => {
  const { fetch } = setup([503], { maxAttempts: 2 });
  await fetch('http://127.0.0.1:9/a');
  await fetch('http://127.0.0.1:9/b');
  // Starts full (10; the first call's deposit is capped), one retry per call (-2), the second call's
  // deposit (+0.1) and the 1-per-second floor over the two 100 ms waits (+0.2).
  assert.equal(Math.round(fetch.budgetFor('http://127.0.0.1:9')!.tokens * 10) / 10, 8.3);
  assert.equal(fetch.budgetFor('http://[::1]:9')!.tokens, 10);
});

test('methods: POST and PATCH without a key are never retried; safe and idempotent ones are', async () => {
  for (const [method, attempts] of [
    ['GET', 2],
    ['HEAD', 2],
    ['OPTIONS', 2],
    ['PUT', 2],
    ['DELETE', 2],
    ['get', 2],
    ['POST', 1],
    ['PATCH', 1],
    ['patch', 1],
  ] as const) {
    const { fetch, sent, giveUps } = setup([503, 200]);
    const res = await fetch(URL_, { method, body: method === 'GET' || method === 'HEAD' ? null : 'x' });
    assert.equal(sent.length, attempts, method);
    if (attempts === 1) {
      assert.equal(res.status, 503);
      assert.equal(giveUps[0]?.reason, 'method');
    }
  }
  const { fetch, sent } = setup([{ error: 'ECONNREFUSED' }, 200]);
  await assert.rejects(fetch(URL_, { method: 'POST', body: '{}' }), TypeError);
  assert.equal(sent.length, 1, 'not even a refused connection is retried');
});

test('idempotencyKey "auto": one UUID v4 per call, the same on every attempt', async () => {
  const { fetch, sent, retries } = setup([503, 503, 201], { idempotencyKey: 'auto' });
  const res = await fetch(URL_, { method: 'POST', body: '{"amount":1}' });
  assert.equal(res.status, 201);
  const keys = sent.map((s) => s.headers.get('idempotency-key'));
  assert.equal(keys.length, 3);
  assert.match(keys[0]!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.deepEqual(new Set(keys).size, 1);
  assert.deepEqual(
    sent.map((s) => s.body),
    ['{"amount":1}', '{"amount":1}', '{"amount":1}'],
  );
  assert.equal(retries[0]!.idempotencyKey, keys[0]);

  const second = setup([201], { idempotencyKey: 'auto' });
  await second.fetch(URL_, { method: 'POST' });
  await second.fetch(URL_, { method: 'POST' });
  assert.notEqual(
    second.sent[0]!.headers.get('idempotency-key'),
    second.sent[1]!.headers.get('idempotency-key'),
    'a new key per logical call',
  );
});

test('idempotency keys: per call, never replacing the caller’s, not added to GET', async () => {
  const perCall = setup([503, 200]);
  await perCall.fetch(URL_, { method: 'POST', idempotencyKey: 'auto' });
  assert.equal(perCall.sent.length, 2);

  const given = setup([503, 200], { idempotencyKey: 'auto' });
  await given.fetch(URL_, { method: 'POST', headers: { 'IDEMPOTENCY-KEY': 'mine-1' } });
  assert.deepEqual(
    given.sent.map((s) => s.headers.get('idempotency-key')),
    ['mine-1', 'mine-1'],
  );

  const asString = setup([503, 200]);
  await asString.fetch(URL_, { method: 'PATCH', idempotencyKey: 'order-42' });
  assert.deepEqual(
    asString.sent.map((s) => s.headers.get('idempotency-key')),
    ['order-42', 'order-42'],
  );

  const optOut = setup([503, 200], { idempotencyKey: 'auto' });
  await optOut.fetch(URL_, { method: 'POST', idempotencyKey: false });
  assert.equal(optOut.sent.length, 1);
  assert.equal(optOut.sent[0]!.headers.get('idempotency-key'), null);

  const get = setup([200], { idempotencyKey: 'auto' });
  await get.fetch(URL_);
  assert.equal(get.sent[0]!.headers.get('idempotency-key'), null);
});

test('headers upstream: the attempt number and the time this attempt will be waited for', async () => {
  const { fetch, sent } = setup([503, 503, 503, 503, 503, 200], {
    deadlineMs: 1000,
    attemptTimeoutMs: 500,
    maxAttempts: 10,
  });
  const res = await fetch(URL_, { headers: [['x-trace', 'abc']] });
  // attempts at 0, 100, 300, 700; the next wait (800) would pass the deadline.
  assert.equal(res.status, 503);
  assert.deepEqual(
    sent.map((s) => [s.at, s.headers.get('surety-attempt'), s.headers.get('surety-timeout-ms')]),
    [
      [0, '1', '500'],
      [100, '2', '500'],
      [300, '3', '500'],
      [700, '4', '300'],
    ],
  );
  assert.ok(sent.every((s) => s.headers.get('x-trace') === 'abc'));

  const off = setup([200], { deadlineHeader: false, attemptHeader: 'x-attempt' });
  await off.fetch(URL_);
  assert.equal(off.sent[0]!.headers.get('surety-timeout-ms'), null);
  assert.equal(off.sent[0]!.headers.get('x-attempt'), '1');
});

test('deadline: never sleeps past it, gives up with the last response', async () => {
  const { fetch, sent, giveUps, clock } = setup([503], { deadlineMs: 250, maxAttempts: 10 });
  const res = await fetch(URL_);
  assert.equal(res.status, 503);
  // attempts at 0 and 100; the next wait of 200 would end at 300 > 250.
  assert.equal(sent.length, 2);
  assert.equal(clock.now(), 100);
  assert.equal(giveUps[0]!.reason, 'deadline');
});

test('per-call deadline and maxAttempts override the client’s', async () => {
  const { fetch, sent } = setup([503]);
  await fetch(URL_, { maxAttempts: 2 });
  assert.equal(sent.length, 2);
  const second = setup([503]);
  await second.fetch(URL_, { deadlineMs: 50 });
  assert.equal(second.sent.length, 1);
});

test('deadlineMs, attemptTimeoutMs and baseDelayMs, per client and per call', async () => {
  const { fetch, sent, giveUps, clock } = setup([503], {
    deadlineMs: 250,
    baseDelayMs: 200,
    maxAttempts: 10,
  });
  await fetch(URL_);
  // As 'deadline: never sleeps past it': attempts at 0 and 100; the next wait of 200 would pass 250.
  assert.equal(sent.length, 2);
  assert.equal(clock.now(), 100);
  assert.equal(giveUps[0]!.reason, 'deadline');

  const perCall = setup([503]);
  await perCall.fetch(URL_, { deadlineMs: 50 });
  assert.equal(perCall.sent.length, 1);

  const timed = setup([{ hang: true }, 200], { attemptTimeoutMs: 1000 });
  assert.equal((await timed.fetch(URL_)).status, 200);
  assert.ok(timed.retries[0]!.error instanceof AttemptTimeoutError);
  assert.equal((timed.retries[0]!.error as AttemptTimeoutError).timeoutMs, 1000);
  assert.equal(timed.sent[0]!.headers.get('surety-timeout-ms'), '1000');
});

test('attempt timeout: the attempt is aborted and retried', async () => {
  const { fetch, sent, retries, clock } = setup([{ hang: true }, 200], { attemptTimeoutMs: 1000 });
  const res = await fetch(URL_);
  assert.equal(res.status, 200);
  assert.equal(sent.length, 2);
  assert.ok(retries[0]!.error instanceof AttemptTimeoutError);
  assert.equal(clock.now(), 1100);
});

test('deadline reached during an attempt: DeadlineExceededError, at the deadline', async () => {
  const { fetch, clock, giveUps } = setup([503, { hang: true }], {
    deadlineMs: 2000,
    attemptTimeoutMs: 10_000,
  });
  await assert.rejects(fetch(URL_), (error: unknown) => {
    assert.ok(error instanceof DeadlineExceededError);
    assert.equal(error.code, 'SURETY_DEADLINE_EXCEEDED');
    assert.equal(error.deadlineMs, 2000);
    return true;
  });
  assert.equal(clock.now(), 2000);
  assert.equal(giveUps[0]!.reason, 'deadline');
});

test('a slow answer within the attempt timeout is not cut short', async () => {
  const { fetch, clock } = setup([{ slow: 900, status: 200 }], { attemptTimeoutMs: 1000 });
  assert.equal((await fetch(URL_)).status, 200);
  assert.equal(clock.now(), 900);
});

test('caller abort during backoff rejects at once with the signal’s reason', async () => {
  const controller = new AbortController();
  const { fetch, clock, sent } = setup([{ status: 503, headers: { 'retry-after': '10' } }, 200], {
    onRetry: () => queueMicrotask(() => controller.abort(new Error('user went away'))),
  });
  await assert.rejects(fetch(URL_, { signal: controller.signal }), /user went away/);
  assert.equal(sent.length, 1);
  assert.equal(clock.now(), 0, 'the 10 s wait was not sat out');
  assert.equal(clock.pending, 0, 'the backoff timer was cleared');
});

test('caller abort during an attempt, and an already aborted signal', async () => {
  const controller = new AbortController();
  const { fetch, sent } = setup([{ hang: true }]);
  const pending = fetch(URL_, { signal: controller.signal });
  setImmediate(() => controller.abort());
  await assert.rejects(pending, { name: 'AbortError' });
  assert.equal(sent.length, 1);
  const second = setup([200]);
  await assert.rejects(second.fetch(URL_, { signal: AbortSignal.abort() }), { name: 'AbortError' });
  assert.equal(second.sent.length, 0);
});

test('not retryable errors are thrown as they are', async () => {
  const { fetch, sent } = setup([{ error: 'ERR_SOMETHING_ELSE' }, 200]);
  await assert.rejects(fetch(URL_), TypeError);
  assert.equal(sent.length, 1);
});

test('retryStatuses and retryMethods are configurable', async () => {
  const { fetch, sent } = setup([500, 200], { retryStatuses: [500, 503] });
  assert.equal((await fetch(URL_)).status, 200);
  assert.equal(sent.length, 2);
  const post = setup([503, 200], { retryMethods: ['POST'] });
  assert.equal((await post.fetch(URL_, { method: 'POST' })).status, 200);
});

test('bodies: buffered ones are replayed identical; streams only with a factory', async () => {
  const bytes = new Uint8Array([1, 2, 3]);
  const buffered = setup([503, 200]);
  await buffered.fetch(URL_, { method: 'PUT', body: bytes });
  assert.deepEqual(
    buffered.sent.map((s) => s.body),
    [bytes, bytes],
  );

  const stream = () =>
    new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes);
        c.close();
      },
    });
  const once = setup([503, 200]);
  const res = await once.fetch(URL_, { method: 'PUT', body: stream(), duplex: 'half' });
  assert.equal(res.status, 503);
  assert.equal(once.sent.length, 1);
  assert.equal(once.giveUps[0]!.reason, 'body');

  let made = 0;
  const factory = setup([503, 200]);
  await factory.fetch(URL_, {
    method: 'PUT',
    bodyFactory: () => {
      made++;
      return stream();
    },
    duplex: 'half',
  });
  assert.equal(factory.sent.length, 2);
  assert.equal(made, 2);
});

test('a Request as input: method, headers and body are taken from it', async () => {
  const { fetch, sent } = setup([503, 200]);
  const request = new Request(URL_, { method: 'PUT', headers: { 'x-a': '1' }, body: 'payload' });
  assert.equal((await fetch(request)).status, 200);
  assert.equal(sent.length, 2);
  assert.equal(sent[1]!.method, 'PUT');
  assert.equal(sent[1]!.headers.get('x-a'), '1');
  assert.deepEqual(sent[1]!.body, new TextEncoder().encode('payload'));
});

test('circuit breaker: opens after consecutive failures, refuses with a code, probes, closes', async () => {
  const clock = createFakeClock();
  let status = 503;
  const sent: number[] = [];
  const fetch = createFetch({
    clock,
    random: () => 0,
    maxAttempts: 1,
    circuitBreaker: { consecutiveFailures: 3, openMs: 1000 },
    transport: async () => {
      sent.push(clock.now());
      return new Response(null, { status });
    },
  });
  const seen: unknown[] = [];
  const onCircuit = (message: unknown) => seen.push(message);
  diagnosticsChannel.subscribe(CHANNELS.circuit, onCircuit);
  try {
    for (let i = 0; i < 3; i++) assert.equal((await fetch(URL_)).status, 503);
    await assert.rejects(fetch(URL_), (error: unknown) => {
      assert.ok(error instanceof CircuitOpenError);
      assert.equal(error.code, 'SURETY_CIRCUIT_OPEN');
      assert.equal(error.origin, 'http://127.0.0.1:9');
      assert.equal(error.retryAfterMs, 1000);
      return true;
    });
    assert.equal(sent.length, 3, 'the refused request was not sent');
    clock.advance(1000);
    status = 200;
    assert.equal((await fetch(URL_)).status, 200);
    assert.equal(fetch.breakerFor('http://127.0.0.1:9')!.state, 'closed');
    assert.deepEqual(seen, [
      { origin: 'http://127.0.0.1:9', state: 'open', previous: 'closed' },
      { origin: 'http://127.0.0.1:9', state: 'half-open', previous: 'open' },
      { origin: 'http://127.0.0.1:9', state: 'closed', previous: 'half-open' },
    ]);
  } finally {
    diagnosticsChannel.unsubscribe(CHANNELS.circuit, onCircuit);
  }
});

test('circuit breaker opening mid-retries returns the last failure', async () => {
  const { fetch, sent, giveUps } = setup([503], { circuitBreaker: { consecutiveFailures: 2 } });
  assert.equal((await fetch(URL_)).status, 503);
  assert.equal(sent.length, 2);
  assert.equal(giveUps[0]!.reason, 'circuit-open');
});

test('diagnostics_channel: attempt, retry and giveUp events', async () => {
  const events: [string, unknown][] = [];
  const listeners = Object.values(CHANNELS).map((name) => {
    const listener = (message: unknown) => events.push([name, message]);
    diagnosticsChannel.subscribe(name, listener);
    return [name, listener] as const;
  });
  try {
    const { fetch } = setup([503], { maxAttempts: 2 });
    await fetch(URL_);
  } finally {
    for (const [name, listener] of listeners) diagnosticsChannel.unsubscribe(name, listener);
  }
  assert.deepEqual(
    events.map(([name]) => name),
    ['surety:fetch:attempt', 'surety:fetch:retry', 'surety:fetch:attempt', 'surety:fetch:giveUp'],
  );
  assert.deepEqual(events[1]![1], { url: URL_, method: 'GET', attempt: 1, delayMs: 100, status: 503 });
  assert.deepEqual(events[3]![1], {
    url: URL_,
    method: 'GET',
    attempts: 2,
    reason: 'max-attempts',
    status: 503,
  });
});

test('a long-lived caller signal does not keep one listener per call', async () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const shutdown = new AbortController();
  const { fetch } = setup([200]);
  for (let i = 0; i < 200; i++) await (await fetch(URL_, { signal: shutdown.signal })).text();
  for (let i = 0; i < 10 && getEventListeners(shutdown.signal, 'abort').length > 0; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.equal(getEventListeners(shutdown.signal, 'abort').length, 0);
});

test('circuit breaker: the client composes through the onStateChange option, overwriting nothing', async () => {
  const clock = createFakeClock();
  const changes: string[] = [];
  const fetch = createFetch({
    clock,
    random: () => 0,
    maxAttempts: 1,
    circuitBreaker: {
      consecutiveFailures: 1,
      openMs: 1000,
      onStateChange: (state, previous) => changes.push(`${previous}->${state}`),
    },
    transport: async () => new Response(null, { status: 503 }),
  });
  const seen: unknown[] = [];
  const onCircuit = (message: unknown) => seen.push(message);
  diagnosticsChannel.subscribe(CHANNELS.circuit, onCircuit);
  try {
    assert.equal((await fetch(URL_)).status, 503);
    const breaker = fetch.breakerFor('http://127.0.0.1:9')!;
    // The property is the caller's to set: the client listens through the option.
    assert.equal(breaker.onStateChange, undefined);
    assert.deepEqual(changes, ['closed->open']);
    assert.deepEqual(seen, [{ origin: 'http://127.0.0.1:9', state: 'open', previous: 'closed' }]);
  } finally {
    diagnosticsChannel.unsubscribe(CHANNELS.circuit, onCircuit);
  }
});
