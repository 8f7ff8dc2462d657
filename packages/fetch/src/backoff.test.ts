import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fullJitter } from './backoff.js';

test('full jitter: random(0, min(cap, base * 2^retry)), step by step', () => {
  // retry, random → delay, with the defaults base 200 ms, cap 5 s.
  const steps: [number, number, number][] = [
    [0, 0.5, 100],
    [1, 0.5, 200],
    [2, 0.5, 400],
    [3, 0.5, 800],
    [4, 0.5, 1600],
    [5, 0.5, 2500], // 200 * 32 = 6400, capped at 5000
    [6, 0.999, 4995],
    [0, 0, 0],
    [2000, 0.5, 2500], // 2^2000 is Infinity; the cap still holds
  ];
  for (const [retry, random, delay] of steps) {
    assert.equal(fullJitter(retry, { random: () => random }), delay, `retry ${retry}, random ${random}`);
  }
});

test('full jitter honours baseDelayMs and maxDelayMs', () => {
  assert.equal(fullJitter(3, { baseDelayMs: 10, maxDelayMs: 50, random: () => 0.5 }), 25);
  assert.equal(fullJitter(1, { baseDelayMs: 10, maxDelayMs: 50, random: () => 0.5 }), 10);
});
