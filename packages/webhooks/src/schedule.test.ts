import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_SCHEDULE, nextDelay, parseRetryAfter, parseSchedule } from './schedule.js';

test('parses the documented schedule', () => {
  assert.deepEqual(parseSchedule('5s,5m,30m,2h,6h,12h,24h'), [...DEFAULT_SCHEDULE]);
  assert.deepEqual(parseSchedule(' 100ms , 1s,1d'), [0.1, 1, 86400]);
  for (const bad of ['', '5', '5x', '-1s', '8d', 'a,b']) assert.throws(() => parseSchedule(bad), bad);
});

test('jitter only adds delay, and the schedule ends', () => {
  const table: [number, number, number | undefined][] = [
    // attempts so far, random, expected ms
    [1, 0, 5000],
    [1, 1, 5500],
    [2, 0.5, 315_000],
    [7, 0, 86_400_000],
    [8, 0, undefined],
  ];
  for (const [attempts, r, expected] of table) {
    assert.equal(nextDelay(DEFAULT_SCHEDULE, attempts, { random: () => r }), expected, `${attempts}/${r}`);
  }
});

test('Retry-After lengthens a delay within bounds, never shortens it', () => {
  const s = [5, 60];
  assert.equal(nextDelay(s, 1, { random: () => 0, retryAfterSeconds: 30 }), 30_000);
  assert.equal(nextDelay(s, 1, { random: () => 0, retryAfterSeconds: 1 }), 5_000);
  assert.equal(nextDelay(s, 1, { random: () => 0, retryAfterSeconds: 999_999 }), 3_600_000);
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(parseRetryAfter('120', now), 120);
  assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now), 60);
  assert.equal(parseRetryAfter('soon', now), undefined);
  assert.equal(parseRetryAfter(undefined, now), undefined);
});

test('a Retry-After longer than 10 digits is capped at the longest honoured, not ignored (issue 15, D7)', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  for (const value of ['99999999999', '12345678901234567890', '9'.repeat(400), ' 00000000000000000120 ']) {
    const seconds = parseRetryAfter(value, now);
    assert.ok(seconds !== undefined && Number.isFinite(seconds), `${value.slice(0, 30)}: ${seconds}`);
    const delay = nextDelay([5], 1, {
      random: () => 0,
      retryAfterSeconds: seconds,
      maxRetryAfterSeconds: 3600,
    });
    assert.equal(delay, value.trim() === '00000000000000000120' ? 120_000 : 3_600_000, value.slice(0, 30));
  }
  // Not a date either: digits with a sign or a point are not delay-seconds (Date.parse would read them).
  for (const value of ['-1', '1.5', '+5']) assert.equal(parseRetryAfter(value, now), undefined, value);
});
