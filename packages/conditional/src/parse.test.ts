import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type ETagListParse, formatHttpDate, parseETagList, parseHttpDate } from './parse.js';

const s = (opaque: string) => ({ weak: false, opaque });
const w = (opaque: string) => ({ weak: true, opaque });

describe('parseETagList', () => {
  const ok: [string | string[], ETagListParse][] = [
    ['*', { kind: 'any', ok: true, any: true }],
    [' * ', { kind: 'any', ok: true, any: true }],
    ['"a"', { kind: 'tags', ok: true, any: false, tags: [s('a')] }],
    ['"a","b"', { kind: 'tags', ok: true, any: false, tags: [s('a'), s('b')] }],
    ['"a", W/"b"', { kind: 'tags', ok: true, any: false, tags: [s('a'), w('b')] }],
    ['W/"a" ,\t"b" , W/"c"', { kind: 'tags', ok: true, any: false, tags: [w('a'), s('b'), w('c')] }],
    [', ,"a",, "b",', { kind: 'tags', ok: true, any: false, tags: [s('a'), s('b')] }], // empty elements (RFC 9110 §5.6.1)
    ['"a,b", "c"', { kind: 'tags', ok: true, any: false, tags: [s('a,b'), s('c')] }], // a comma inside a tag
    ['""', { kind: 'tags', ok: true, any: false, tags: [s('')] }],
    [['"a"', 'W/"b"'], { kind: 'tags', ok: true, any: false, tags: [s('a'), w('b')] }], // several header lines
  ];
  for (const [input, expected] of ok) {
    test(`valid: ${JSON.stringify(input)}`, () => assert.deepEqual(parseETagList(input), expected));
  }

  const malformed: [string, RegExp][] = [
    ['', /empty/],
    ['   ', /empty/],
    [', ,', /empty/],
    ['abc', /not an entity tag/],
    ['"a", abc', /not an entity tag/],
    ['w/"a"', /not an entity tag/],
    ['W/ "a"', /not an entity tag/],
    ['*, "a"', /whole field value/],
    ['"a", *', /whole field value/],
    ['"a" "b"', /separated by commas/],
    ['"a"b', /separated by commas/],
    ['"a', /closing quote/],
    ['"a\u0001"', /cannot carry/],
    ['"a b"', /separated by commas|not an entity tag|cannot carry/],
  ];
  for (const [input, detail] of malformed) {
    test(`malformed: ${JSON.stringify(input)}`, () => {
      const parsed = parseETagList(input);
      assert.equal(parsed.ok, false);
      if (!parsed.ok) assert.match(parsed.detail, detail);
    });
  }
});

describe('parseHttpDate', () => {
  const now = new Date('2025-06-01T00:00:00Z');
  const valid: [string, string][] = [
    ['Sun, 06 Nov 1994 08:49:37 GMT', '1994-11-06T08:49:37.000Z'], // IMF-fixdate
    ['  Sun, 06 Nov 1994 08:49:37 GMT ', '1994-11-06T08:49:37.000Z'],
    ['Sunday, 06-Nov-94 08:49:37 GMT', '1994-11-06T08:49:37.000Z'], // RFC 850
    ['Sun Nov  6 08:49:37 1994', '1994-11-06T08:49:37.000Z'], // asctime
    ['Wed Nov 16 08:49:37 1994', '1994-11-16T08:49:37.000Z'],
    ['Thu, 01 Jan 1970 00:00:00 GMT', '1970-01-01T00:00:00.000Z'],
    ['Thu, 29 Feb 2024 23:59:60 GMT', '2024-02-29T23:59:59.000Z'], // leap second
    ['Tuesday, 01-Jan-30 00:00:00 GMT', '2030-01-01T00:00:00.000Z'], // under 50 years ahead: this century
  ];
  for (const [input, iso] of valid) {
    test(`valid: ${input}`, () => assert.equal(parseHttpDate(input, now)?.toISOString(), iso));
  }

  const invalid = [
    '',
    'yesterday',
    '1994-11-06T08:49:37Z',
    'Sun, 06 Nov 1994 08:49:37 UTC',
    'sun, 06 Nov 1994 08:49:37 GMT',
    'Sun, 6 Nov 1994 08:49:37 GMT',
    'Mon, 06 Nov 1994 08:49:37 GMT', // wrong day name
    'Fri, 31 Feb 2025 00:00:00 GMT', // no such day
    'Sun, 06 Foo 1994 08:49:37 GMT',
    'Sun, 06 Nov 1994 24:00:00 GMT',
    'Sun, 06 Nov 1994 08:49:37 GMT, Mon, 07 Nov 1994 08:49:37 GMT', // a list
    'Sun, 06 Nov 1994 08:49:37 GMT; length=1234', // old browsers' If-Modified-Since
    '784111777',
  ];
  for (const input of invalid) {
    test(`invalid: ${JSON.stringify(input)}`, () => assert.equal(parseHttpDate(input, now), undefined));
  }

  test('formatHttpDate is IMF-fixdate and round-trips', () => {
    const date = new Date('1994-11-06T08:49:37Z');
    assert.equal(formatHttpDate(date), 'Sun, 06 Nov 1994 08:49:37 GMT');
    assert.deepEqual(parseHttpDate(formatHttpDate(date)), date);
  });
});
