// The purge's ratio as the median of rounds, with the measure's own A/A test beside it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { roundRatios } from './stats.js';

const ms = (n: number, slow: number, at: number) =>
  Array.from({ length: n }, (_, i) => (i >= at && i < at + Math.ceil(n / 50) ? slow : 1));

test('one round stalled by a neighbour moves its own ratio, not the median of three', () => {
  const rounds = [
    { before: ms(1000, 2, 0), during: ms(1000, 2, 500) }, // 1.0
    { before: ms(1000, 2, 0), during: ms(1000, 20, 500) }, // a stall: 10.0
    { before: ms(1000, 2, 0), during: ms(1000, 3, 500) }, // 1.5
  ];
  const r = roundRatios(rounds);
  assert.deepEqual(r.ratios, [1, 10, 1.5]);
  assert.equal(r.median, 1.5);
  assert.deepEqual([r.min, r.max], [1, 10]);
});

test('the A/A test is each before-window first half ÷ second half, by p99', () => {
  // first half has its slow tail, second half none: p99 2 vs 1
  const r = roundRatios([
    { before: ms(1000, 2, 0), during: ms(10, 1, 0) },
    { before: ms(1000, 4, 600), during: ms(10, 1, 0) },
  ]);
  assert.deepEqual(r.aa, [2, 0.25]);
  assert.deepEqual([r.aaMin, r.aaMax], [0.25, 2]);
  assert.ok(Number.isNaN(roundRatios([]).median));
});
