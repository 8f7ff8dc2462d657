// The classification of an attempt's result as a step table (AWS's retry-spec style): result →
// outcome, error code, next delay. No database, no clock: everything is passed in.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AttemptResult, type Classification, classify, healthEffect } from './classify.js';

const NOW = Date.parse('2026-12-01T00:00:00Z');
const res = (status: number, retryAfter?: string): AttemptResult => ({
  kind: 'response',
  status,
  retryAfter,
});
const base = { schedule: [5, 300] as const, nowMs: NOW, random: () => 0.5, maxRetryAfterSeconds: 3600 };

// jitter 0.1 × random 0.5: every scheduled delay is 1.05 × its seconds
const steps: { name: string; result: AttemptResult; attempts: number; expect: Classification }[] = [
  {
    name: '200',
    result: res(200),
    attempts: 1,
    expect: { kind: 'delivered', status: 200, errorCode: null, gone: false },
  },
  {
    name: '204',
    result: res(204),
    attempts: 3,
    expect: { kind: 'delivered', status: 204, errorCode: null, gone: false },
  },
  {
    name: '500, first attempt',
    result: res(500),
    attempts: 1,
    expect: { kind: 'retry', status: 500, errorCode: 'http_500', delayMs: 5250, nextAtMs: NOW + 5250 },
  },
  {
    name: '500, second attempt',
    result: res(500),
    attempts: 2,
    expect: { kind: 'retry', status: 500, errorCode: 'http_500', delayMs: 315_000, nextAtMs: NOW + 315_000 },
  },
  {
    name: '500, schedule exhausted',
    result: res(500),
    attempts: 3,
    expect: { kind: 'failed', status: 500, errorCode: 'http_500', gone: false },
  },
  {
    name: '410 Gone',
    result: res(410),
    attempts: 1,
    expect: { kind: 'failed', status: 410, errorCode: 'http_410', gone: true },
  },
  {
    name: '302 is not followed',
    result: res(302),
    attempts: 1,
    expect: {
      kind: 'retry',
      status: 302,
      errorCode: 'redirect_not_followed',
      delayMs: 5250,
      nextAtMs: NOW + 5250,
    },
  },
  {
    name: '101 is not a success',
    result: res(101),
    attempts: 1,
    expect: { kind: 'retry', status: 101, errorCode: 'http_101', delayMs: 5250, nextAtMs: NOW + 5250 },
  },
  {
    name: '429 with a longer Retry-After',
    result: res(429, '60'),
    attempts: 1,
    expect: { kind: 'retry', status: 429, errorCode: 'http_429', delayMs: 60_000, nextAtMs: NOW + 60_000 },
  },
  {
    name: '503 with a Retry-After date',
    result: res(503, new Date(NOW + 120_000).toUTCString()),
    attempts: 1,
    expect: { kind: 'retry', status: 503, errorCode: 'http_503', delayMs: 120_000, nextAtMs: NOW + 120_000 },
  },
  {
    name: '503 with a Retry-After past the bound',
    result: res(503, '999999'),
    attempts: 1,
    expect: {
      kind: 'retry',
      status: 503,
      errorCode: 'http_503',
      delayMs: 3_600_000,
      nextAtMs: NOW + 3_600_000,
    },
  },
  {
    name: '503 with a shorter Retry-After keeps the schedule',
    result: res(503, '1'),
    attempts: 1,
    expect: { kind: 'retry', status: 503, errorCode: 'http_503', delayMs: 5250, nextAtMs: NOW + 5250 },
  },
  {
    name: '500 with a Retry-After ignores it (only 429 and 503)',
    result: res(500, '60'),
    attempts: 1,
    expect: { kind: 'retry', status: 500, errorCode: 'http_500', delayMs: 5250, nextAtMs: NOW + 5250 },
  },
  {
    name: 'a transport error',
    result: { kind: 'error', code: 'connect_timeout' },
    attempts: 1,
    expect: {
      kind: 'retry',
      status: null,
      errorCode: 'connect_timeout',
      delayMs: 5250,
      nextAtMs: NOW + 5250,
    },
  },
  {
    name: 'a transport error, schedule exhausted',
    result: { kind: 'error', code: 'ssrf_blocked' },
    attempts: 3,
    expect: { kind: 'failed', status: null, errorCode: 'ssrf_blocked', gone: false },
  },
  {
    name: 'endpoint deleted: nothing sent, failed at once',
    result: { kind: 'not_sent', code: 'endpoint_deleted' },
    attempts: 1,
    expect: { kind: 'failed', status: null, errorCode: 'endpoint_deleted', gone: false },
  },
  {
    name: 'endpoint disabled',
    result: { kind: 'not_sent', code: 'endpoint_disabled' },
    attempts: 1,
    expect: { kind: 'failed', status: null, errorCode: 'endpoint_disabled', gone: false },
  },
  {
    name: 'event deleted',
    result: { kind: 'not_sent', code: 'event_deleted' },
    attempts: 1,
    expect: { kind: 'failed', status: null, errorCode: 'event_deleted', gone: false },
  },
];

for (const s of steps) {
  test(`classify: ${s.name}`, () => {
    assert.deepEqual(classify({ ...base, result: s.result, attempts: s.attempts }), s.expect);
  });
}

test('classify: jitter only adds delay, drawn from the random source passed in', () => {
  const at = (r: number) => classify({ ...base, random: () => r, result: res(500), attempts: 1 });
  assert.deepEqual(
    [0, 0.99].map((r) => (at(r) as { delayMs: number }).delayMs),
    [5000, 5495],
  );
});

test('classify: a random source is not drawn for an outcome without a delay', () => {
  let draws = 0;
  const random = () => {
    draws++;
    return 0;
  };
  classify({ ...base, random, result: res(200), attempts: 1 });
  classify({ ...base, random, result: res(410), attempts: 1 });
  classify({ ...base, random, result: { kind: 'not_sent', code: 'event_deleted' }, attempts: 1 });
  assert.equal(draws, 0);
});

test('healthEffect: the codes that say nothing about the receiver', () => {
  assert.equal(healthEffect('failed', 'endpoint_disabled'), 'ignored');
  assert.equal(healthEffect('failed', 'endpoint_deleted'), 'ignored');
  assert.equal(healthEffect('failed', 'event_deleted'), 'no_send');
  assert.equal(healthEffect('retry', 'http_500'), 'failure');
  assert.equal(healthEffect('failed', 'http_410'), 'failure');
  assert.equal(healthEffect('delivered', null), 'success');
});

test('classify with throttle: 429 and 503 are throttled (not spent), after Retry-After (bounded) or about a second', () => {
  const t = (result: AttemptResult, attempts = 3) => classify({ ...base, throttle: true, result, attempts });
  assert.deepEqual(t(res(429)), {
    kind: 'throttled',
    status: 429,
    errorCode: 'throttled',
    delayMs: 1125, // a second plus a quarter × random 0.5
    nextAtMs: NOW + 1125,
    retryAfterMs: null,
  });
  assert.deepEqual(t(res(503, '30')), {
    kind: 'throttled',
    status: 503,
    errorCode: 'throttled',
    delayMs: 30_000,
    nextAtMs: NOW + 30_000,
    retryAfterMs: 30_000,
  });
  // Bounded by maxRetryAfterSeconds; and the schedule's end does not fail a throttled delivery.
  assert.equal((t(res(429, '999999'), 99) as { delayMs: number }).delayMs, 3_600_000);
  // Other statuses are unchanged; without `throttle`, 429 is a retry on the schedule.
  assert.equal(t(res(500)).kind, 'failed');
  assert.equal(classify({ ...base, result: res(429), attempts: 1 }).kind, 'retry');
  assert.equal(healthEffect('throttled', 'throttled'), 'throttled');
});
