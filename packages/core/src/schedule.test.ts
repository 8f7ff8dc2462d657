import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_RETRY_SCHEDULE, formatDelay } from './schedule.js';

test('the default schedule as text is the one the docs and the AsyncAPI document show', () => {
  assert.equal(DEFAULT_RETRY_SCHEDULE.map(formatDelay).join(','), '5s,5m,30m,2h,6h,12h,24h');
});

test('a delay is written in the largest unit that divides it', () => {
  assert.deepEqual([90, 60, 3600, 5400, 0.25, 1.5].map(formatDelay), [
    '90s',
    '1m',
    '1h',
    '90m',
    '250ms',
    '1500ms',
  ]);
});
