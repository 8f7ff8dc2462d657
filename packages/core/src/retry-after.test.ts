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

test('a huge delay-seconds is capped at a finite maximum, never Infinity or ignored (issue 15, D7)', () => {
  for (const value of ['99999999999', '9'.repeat(30), '9'.repeat(400)]) {
    const ms = parseRetryAfter(value, now);
    assert.ok(ms !== undefined && Number.isFinite(ms), `${value.slice(0, 20)}: ${ms}`);
    assert.ok(ms >= 99_999_999_999_000 || ms === Number.MAX_SAFE_INTEGER, `${value.slice(0, 20)}: ${ms}`);
    assert.ok(ms <= Number.MAX_SAFE_INTEGER);
  }
});
