import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRetryAfter } from './retry-after.js';

const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');

test('Retry-After: delta-seconds and HTTP-dates; invalid values are ignored', () => {
  const cases: [string | null | undefined, number | undefined][] = [
    ['0', 0],
    ['3', 3000],
    [' 120 ', 120_000],
    ['Wed, 21 Oct 2015 07:28:05 GMT', 5000], // IMF-fixdate
    ['Wednesday, 21-Oct-15 07:28:10 GMT', 10_000], // obsolete RFC 850 form
    ['Wed, 21 Oct 2015 07:27:00 GMT', 0], // in the past: now
    [null, undefined],
    [undefined, undefined],
    ['', undefined],
    ['-1', undefined],
    ['1.5', undefined],
    ['soon', undefined],
    ['3 seconds', undefined],
  ];
  for (const [value, expected] of cases) assert.equal(parseRetryAfter(value, now), expected, String(value));
});
