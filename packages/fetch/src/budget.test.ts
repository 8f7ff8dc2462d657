import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RetryBudget } from './budget.js';
import { createFakeClock } from './testing.js';

const round = (n: number) => Math.round(n * 1000) / 1000;

test('retry budget, step table: calls deposit, retries withdraw one whole token', () => {
  const clock = createFakeClock({ autoAdvance: false });
  const budget = new RetryBudget({ ratio: 0.25, minPerSecond: 0, maxTokens: 2, clock });
  // step → allowed (for retries), tokens left afterwards
  const steps: ['call' | 'retry', boolean | null, number][] = [
    ['retry', true, 1], // starts full
    ['retry', true, 0],
    ['retry', false, 0], // empty: the failure goes back to the caller
    ['call', null, 0.25],
    ['call', null, 0.5],
    ['call', null, 0.75],
    ['retry', false, 0.75], // less than one whole token
    ['call', null, 1],
    ['retry', true, 0],
    ...Array.from({ length: 12 }, () => ['call', null, 0] as ['call', null, number]),
  ];
  steps.forEach(([op, allowed, tokens], i) => {
    if (op === 'retry') assert.equal(budget.tryWithdraw(), allowed, `step ${i}`);
    else budget.deposit();
    if (i < 9) assert.equal(round(budget.tokens), tokens, `step ${i}: tokens`);
  });
  assert.equal(budget.tokens, 2, 'deposits beyond maxTokens are dropped');
});

test('retry budget: ten deposits of 0.1 buy one retry despite floating point', () => {
  const budget = new RetryBudget({ ratio: 0.1, minPerSecond: 0, maxTokens: 10 });
  for (let i = 0; i < 10; i++) assert.equal(budget.tryWithdraw(), true);
  assert.equal(budget.tryWithdraw(), false);
  for (let i = 0; i < 10; i++) budget.deposit();
  assert.equal(budget.tryWithdraw(), true);
  assert.equal(budget.tryWithdraw(), false);
});

test('retry budget: the per-second floor refills with time, up to maxTokens', () => {
  const clock = createFakeClock({ autoAdvance: false });
  const budget = new RetryBudget({ ratio: 0.1, minPerSecond: 2, maxTokens: 3, clock });
  for (let i = 0; i < 3; i++) assert.equal(budget.tryWithdraw(), true);
  assert.equal(budget.tryWithdraw(), false);
  clock.advance(499);
  assert.equal(budget.tryWithdraw(), false);
  clock.advance(1);
  assert.equal(budget.tryWithdraw(), true, '2 per second: one after 500 ms');
  clock.advance(60_000);
  assert.equal(budget.tokens, 3);
});

test('retry budget: bound over a storm is maxTokens + ratio * calls (+ floor * seconds)', () => {
  const budget = new RetryBudget({ minPerSecond: 0 });
  let retries = 0;
  for (let call = 0; call < 1000; call++) {
    budget.deposit();
    for (let retry = 0; retry < 3; retry++) if (budget.tryWithdraw()) retries++;
  }
  assert.ok(retries <= 10 + 0.1 * 1000, `${retries} retries`);
  assert.ok(retries >= 100, `${retries} retries`);
});

test('retry budget rejects negative settings', () => {
  assert.throws(() => new RetryBudget({ ratio: -1 }), RangeError);
});
