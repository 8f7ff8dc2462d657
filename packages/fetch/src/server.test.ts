import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DeadlineExceededError } from './errors.js';
import { deadlineProblem, deadlineSignal, readDeadline } from './server.js';

test('readDeadline: a plain non-negative integer of milliseconds, else undefined', () => {
  const cases: [string | string[] | undefined, number | undefined][] = [
    ['1500', 1500],
    [' 250 ', 250],
    ['0', 0],
    [undefined, undefined],
    ['', undefined],
    ['-5', undefined],
    ['1.5', undefined],
    ['1e3', undefined],
    ['soon', undefined],
    ['900, 700', 700], // a comma-joined list: the smallest
    [['900', '300'], 300], // repeated headers: the smallest
    ['99999999999', 300_000], // capped at maxMs
  ];
  for (const [value, expected] of cases) {
    assert.equal(readDeadline({ 'surety-timeout-ms': value }), expected, String(value));
  }
});

test('readDeadline: Headers objects, reserveMs, maxMs, defaultMs and another header name', () => {
  assert.equal(readDeadline(new Headers({ 'Surety-Timeout-Ms': '800' })), 800);
  assert.equal(readDeadline({ 'surety-timeout-ms': '800' }, { reserveMs: 50 }), 750);
  assert.equal(readDeadline({ 'surety-timeout-ms': '30' }, { reserveMs: 50 }), 0);
  assert.equal(readDeadline({ 'surety-timeout-ms': '800' }, { maxMs: 100 }), 100);
  assert.equal(readDeadline({}, { defaultMs: 5000 }), 5000);
  assert.equal(readDeadline({ 'surety-timeout-ms': 'x' }, { defaultMs: 5000 }), 5000);
  assert.equal(readDeadline({ 'x-deadline': '10' }, { header: 'X-Deadline' }), 10);
});

test('deadlineSignal: aborts with DeadlineExceededError; undefined without a deadline', async () => {
  assert.equal(deadlineSignal({}), undefined);
  const already = deadlineSignal({ 'surety-timeout-ms': '0' })!;
  assert.ok(already.aborted);
  assert.ok(already.reason instanceof DeadlineExceededError);
  const soon = deadlineSignal({ 'surety-timeout-ms': '5' })!;
  assert.equal(soon.aborted, false);
  // Its timer is unref'd (a dead request must not hold a process open): keep this test's loop alive.
  const keepAlive = setTimeout(() => undefined, 1000);
  await new Promise((resolve) => soon.addEventListener('abort', resolve, { once: true }));
  clearTimeout(keepAlive);
  assert.equal(soon.reason.code, 'SURETY_DEADLINE_EXCEEDED');
});

test('deadlineProblem: RFC 9457 body with the stable code', () => {
  assert.deepEqual(JSON.parse(deadlineProblem({ deadlineMs: 250, instance: '/v1/orders' })), {
    type: 'https://surety.dev/problems/deadline-exceeded',
    title: 'Deadline exceeded',
    status: 504,
    detail:
      'The caller stops waiting after 250 ms (Surety-Timeout-Ms); no complete answer was ready by then.',
    code: 'deadline_exceeded',
    instance: '/v1/orders',
  });
});
