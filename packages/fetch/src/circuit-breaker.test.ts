import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CircuitBreaker, type CircuitState } from './circuit-breaker.js';
import { createFakeClock } from './testing.js';

test('circuit breaker, step table: consecutive failures open it, a half-open probe closes it', () => {
  const clock = createFakeClock({ autoAdvance: false });
  const breaker = new CircuitBreaker({ consecutiveFailures: 3, openMs: 1000, clock });
  const changes: string[] = [];
  breaker.onStateChange = (state, previous) => changes.push(`${previous}->${state}`);
  // [advance ms, outcome (or 'refused' when tryAcquire must say no), state afterwards]
  const steps: [number, 'success' | 'failure' | 'refused', CircuitState][] = [
    [0, 'failure', 'closed'],
    [0, 'failure', 'closed'],
    [0, 'success', 'closed'], // the streak resets
    [0, 'failure', 'closed'],
    [0, 'failure', 'closed'],
    [0, 'failure', 'open'],
    [0, 'refused', 'open'],
    [999, 'refused', 'open'],
    [1, 'failure', 'open'], // the probe fails: open for another openMs
    [500, 'refused', 'open'],
    [500, 'success', 'closed'],
  ];
  steps.forEach(([advance, outcome, state], i) => {
    clock.advance(advance);
    if (outcome === 'refused') assert.equal(breaker.tryAcquire(), false, `step ${i}`);
    else {
      assert.equal(breaker.tryAcquire(), true, `step ${i}`);
      breaker.record(outcome);
    }
    assert.equal(breaker.state, state, `step ${i}`);
  });
  assert.deepEqual(changes, [
    'closed->open',
    'open->half-open',
    'half-open->open',
    'open->half-open',
    'half-open->closed',
  ]);
});

test('circuit breaker: a failure ratio over the window opens it, old slices age out', () => {
  const clock = createFakeClock({ autoAdvance: false });
  const breaker = new CircuitBreaker({
    consecutiveFailures: 100,
    failureRatio: 0.5,
    minimumRequests: 10,
    windowMs: 1000,
    clock,
  });
  // 4 failures then the window passes: they no longer count.
  for (let i = 0; i < 4; i++) breaker.record('failure');
  breaker.record('success');
  clock.advance(1500);
  for (let i = 0; i < 5; i++) breaker.record('success');
  for (let i = 0; i < 4; i++) {
    breaker.record('failure');
    breaker.record('success');
  }
  assert.equal(breaker.state, 'closed', '4 of 13 in the window failed');
  breaker.record('failure');
  breaker.record('failure');
  assert.equal(breaker.state, 'closed', '6 of 15');
  for (let i = 0; i < 3; i++) breaker.record('failure');
  assert.equal(breaker.state, 'open', '9 of 18');
  assert.equal(breaker.retryAfterMs, 5000);
});

test('circuit breaker: half-open lets only halfOpenProbes through at once; ignore frees the slot', () => {
  const clock = createFakeClock({ autoAdvance: false });
  const breaker = new CircuitBreaker({ consecutiveFailures: 1, openMs: 10, halfOpenProbes: 2, clock });
  breaker.record('failure');
  clock.advance(10);
  assert.equal(breaker.state, 'half-open');
  assert.equal(breaker.tryAcquire(), true);
  assert.equal(breaker.tryAcquire(), true);
  assert.equal(breaker.tryAcquire(), false);
  breaker.record('ignore');
  assert.equal(breaker.state, 'half-open');
  assert.equal(breaker.tryAcquire(), true);
  breaker.record('success');
  assert.equal(breaker.state, 'closed');
});

test('circuit breaker: the onStateChange option is called on every change, and assigning the property does not replace it', () => {
  const clock = createFakeClock({ autoAdvance: false });
  const fromOption: string[] = [];
  const fromProperty: string[] = [];
  const breaker = new CircuitBreaker({
    consecutiveFailures: 1,
    openMs: 100,
    clock,
    onStateChange: (state, previous) => fromOption.push(`${previous}->${state}`),
  });
  breaker.onStateChange = (state, previous) => fromProperty.push(`${previous}->${state}`);
  assert.equal(breaker.tryAcquire(), true);
  breaker.record('failure');
  clock.advance(100);
  assert.equal(breaker.tryAcquire(), true);
  breaker.record('success');
  const expected = ['closed->open', 'open->half-open', 'half-open->closed'];
  assert.deepEqual(fromOption, expected);
  assert.deepEqual(fromProperty, expected);
});
