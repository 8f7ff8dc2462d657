import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConditionalError } from './errors.js';
import {
  contentETag,
  type ETag,
  formatETag,
  parseETag,
  strongMatch,
  versionETag,
  versionFromETag,
  weakMatch,
} from './etag.js';

const strong = (opaque: string): ETag => ({ weak: false, opaque });
const weak = (opaque: string): ETag => ({ weak: true, opaque });

describe('parseETag / formatETag', () => {
  const cases: [string, ETag | undefined][] = [
    ['"v7"', strong('v7')],
    ['W/"v7"', weak('v7')],
    ['  "v7"  ', strong('v7')],
    ['""', strong('')],
    ['"a,b"', strong('a,b')],
    ['"\u00e9"', strong('\u00e9')], // obs-text
    ['v7', undefined],
    ['w/"v7"', undefined], // W/ is case-sensitive
    ['W/v7', undefined],
    ['"v7', undefined],
    ['"a b"', undefined],
    ['"a"b"', undefined],
    ['W/ "v7"', undefined],
    ['', undefined],
  ];
  for (const [input, expected] of cases) {
    test(`parseETag(${JSON.stringify(input)})`, () => assert.deepEqual(parseETag(input), expected));
  }

  test('formatETag round-trips and refuses characters a tag cannot carry', () => {
    assert.equal(formatETag(strong('abc')), '"abc"');
    assert.equal(formatETag(weak('abc')), 'W/"abc"');
    assert.throws(() => formatETag(strong('a"b')), ConditionalError);
    assert.throws(() => formatETag(strong('a b')), ConditionalError);
  });
});

describe('comparison (RFC 9110 §8.8.3.2 table)', () => {
  const cases: [ETag, ETag, boolean, boolean][] = [
    // a, b, strong, weak
    [weak('1'), weak('1'), false, true],
    [weak('1'), weak('2'), false, false],
    [weak('1'), strong('1'), false, true],
    [strong('1'), strong('1'), true, true],
    [strong('1'), strong('2'), false, false],
  ];
  for (const [a, b, s, w] of cases) {
    test(`${formatETag(a)} vs ${formatETag(b)}: strong ${s}, weak ${w}`, () => {
      assert.equal(strongMatch(a, b), s);
      assert.equal(weakMatch(a, b), w);
    });
  }
});

describe('versionETag / versionFromETag', () => {
  test('plain version tags', () => {
    assert.equal(versionETag(7), '"v7"');
    assert.equal(versionETag(0), '"v0"');
    assert.equal(versionETag(7n), '"v7"');
    assert.equal(versionETag('42'), '"v42"'); // a bigint column arrives from pg as a string
    assert.equal(versionETag(7, { weak: true }), 'W/"v7"');
  });

  const invalid: unknown[] = [-1, 1.5, Number.NaN, '07', 'x', '', 2 ** 53, BigInt(2 ** 53)];
  for (const v of invalid) {
    test(`versionETag(${String(v)}) throws`, () =>
      assert.throws(() => versionETag(v as number), ConditionalError));
  }

  test('salted tags differ per salt and read back only with the same salt', () => {
    const a = versionETag(7, { salt: 'created-2024-01-01' });
    const b = versionETag(7, { salt: 'created-2025-06-01' });
    assert.match(a, /^"v7-[0-9a-f]{8}"$/);
    assert.notEqual(a, b);
    assert.equal(versionFromETag(a, { salt: 'created-2024-01-01' }), 7);
    assert.equal(versionFromETag(a, { salt: 'created-2025-06-01' }), undefined);
    assert.equal(versionFromETag(a), undefined);
    assert.equal(versionFromETag('"v7"', { salt: 'created-2024-01-01' }), undefined);
  });

  const reads: [string, number | undefined][] = [
    ['"v7"', 7],
    ['"v0"', 0],
    ['"v9007199254740991"', 9007199254740991],
    ['"v9007199254740992"', undefined],
    ['W/"v7"', undefined], // weak: never usable for a strong If-Match
    ['"v07"', undefined],
    ['"7"', undefined],
    ['"v7x"', undefined],
    ['v7', undefined],
  ];
  for (const [tag, expected] of reads) {
    test(`versionFromETag(${tag}) is ${expected}`, () => assert.equal(versionFromETag(tag), expected));
  }
});

describe('contentETag', () => {
  test('stable, content-dependent, strong by default', () => {
    const a = contentETag('{"a":1}');
    assert.match(a, /^"[A-Za-z0-9_-]{22}"$/);
    assert.equal(contentETag('{"a":1}'), a);
    assert.equal(contentETag(new TextEncoder().encode('{"a":1}')), a);
    assert.notEqual(contentETag('{"a":2}'), a);
    assert.equal(contentETag('{"a":1}', { weak: true }), `W/${a}`);
  });
});
