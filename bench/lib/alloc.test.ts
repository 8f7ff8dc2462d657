// The allocation count sees what a loop allocates, across the collections it causes, and only that.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { measureAllocations } from './alloc.js';

// Where the loops' results go, so that the compiler cannot drop them.
const sink: unknown[] = [];

test('arrays of a known size are counted, garbage collected or not', () => {
  // A 1,000-element array of small integers: a FixedArray of 1,000 tagged slots (4 or 8 bytes each,
  // with or without pointer compression) and its JSArray header. 20,000 of them (~80-160 MB) are
  // collected many times over in the young generation.
  const end = measureAllocations();
  for (let i = 0; i < 20_000; i++) sink[0] = new Array(1000).fill(i);
  const perArray = end(20_000);
  assert.ok(perArray >= 4_000 && perArray <= 8_300, `${perArray} bytes per array`);
});

test('a loop that allocates nothing on the heap counts (near) nothing', () => {
  const ints = new Int32Array(1000);
  const end = measureAllocations();
  let sum = 0;
  for (let round = 0; round < 2_000; round++) for (let i = 0; i < ints.length; i++) sum += ints[i]! + round;
  sink[0] = sum;
  assert.ok(end(2_000) < 100, 'bytes per round of a loop over a typed array');
});
