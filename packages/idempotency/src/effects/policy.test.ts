import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RetryBudget } from '@surety/fetch';
import { EffectFailedError, EffectRetryLaterError } from '../errors.js';
import { decideRetry, describeError, EFFECT_RETRY_DEFAULTS } from './policy.js';

// The retry decision as a step table (AWS's retry spec style): error, attempts, time → outcome.
const policy = { ...EFFECT_RETRY_DEFAULTS, baseDelayMs: 1000, maxDelayMs: 8000, maxAttempts: 6 };
const at = (error: unknown, attempts: number, extra: { budget?: RetryBudget; deadlineMs?: number } = {}) =>
  decideRetry({
    error,
    attempts,
    nowMs: 0,
    deadlineMs: extra.deadlineMs ?? 60_000,
    policy,
    random: () => 0.5,
    budget: extra.budget,
  });
const reset = new Error('reset');

test('full jitter: half of min(cap, base * 2^retry) with random 0.5', () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5].map((n) => {
      const d = at(reset, n);
      return d.kind === 'retry' ? d.delayMs : d.kind;
    }),
    [500, 1000, 2000, 4000, 4000],
  );
});

test('limits: attempts exhausted, a permanent error, a backoff or Retry-After past the deadline', () => {
  assert.deepEqual(at(reset, 6), { kind: 'fail', reason: 'attempts_exhausted' });
  assert.deepEqual(at(new EffectFailedError('bad'), 1), { kind: 'fail', reason: 'permanent' });
  assert.deepEqual(at(reset, 1, { deadlineMs: 500 }), { kind: 'fail', reason: 'deadline_exceeded' });
  assert.deepEqual(at(new EffectRetryLaterError(59_000), 1), {
    kind: 'retry',
    atMs: 59_000,
    delayMs: 59_000,
    deferredByBudget: false,
  });
  assert.deepEqual(at(new EffectRetryLaterError(60_000), 1), { kind: 'fail', reason: 'deadline_exceeded' });
});

test('an empty retry budget defers the retry to the cap instead of failing it', () => {
  const budget = new RetryBudget({ maxTokens: 1, minPerSecond: 0, ratio: 0.1, clock: { now: () => 0 } });
  assert.deepEqual(at(reset, 1, { budget }), {
    kind: 'retry',
    atMs: 500,
    delayMs: 500,
    deferredByBudget: false,
  });
  assert.deepEqual(at(reset, 1, { budget }), {
    kind: 'retry',
    atMs: 8000,
    delayMs: 8000,
    deferredByBudget: true,
  });
  assert.deepEqual(at(reset, 1, { budget, deadlineMs: 8000 }), { kind: 'fail', reason: 'deadline_exceeded' });
});

test('the stored error: code or name and message, one line, no NUL', () => {
  assert.equal(
    describeError(Object.assign(new Error('a\u0000b\nc'), { code: 'ECONNRESET' })),
    'ECONNRESET: a b c',
  );
  assert.equal(describeError(new EffectFailedError('provider_rejected')), 'provider_rejected');
  assert.equal(describeError('x'), 'Error: x');
});
