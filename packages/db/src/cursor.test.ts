// The keyset cursor codec: what encode() writes, decode() reads back; anything else is an
// InvalidCursorError, never a value that would fail (or mean something else) as a query parameter.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { keysetCursor } from './cursor.js';
import { isInvalidCursorError } from './errors.js';

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
const byTime = keysetCursor('timestamp', 'text');
const byNumber = keysetCursor('bigint');

const refused = (codec: { decode(c: string): unknown }, cursor: string) =>
  assert.throws(
    () => codec.decode(cursor),
    (e: unknown) => isInvalidCursorError(e) && e.code === 'SURETY_INVALID_CURSOR',
    cursor,
  );

describe('keysetCursor', () => {
  test('decode(encode(x)) is x, and the format is the one earlier versions wrote', () => {
    const values = ['2026-06-01T12:00:00.123Z', 'evt_0VcXhX2SrjyxafMId10nXm'] as const;
    const c = byTime.encode(values);
    assert.equal(c, b64(values));
    assert.deepEqual(byTime.decode(c), values);
    assert.deepEqual(byNumber.decode(byNumber.encode(['9223372036854775807'])), ['9223372036854775807']);
    assert.deepEqual(byTime.decode(b64(['0001-01-01T00:00:00.000Z', 'x'])), [
      '0001-01-01T00:00:00.000Z',
      'x',
    ]);
  });

  test('timestamps: microseconds round-trip; a whole millisecond is written as toISOString writes it', () => {
    const us = ['2026-06-01T12:00:00.123456Z', 'evt_0VcXhX2SrjyxafMId10nXm'] as const;
    assert.deepEqual(byTime.decode(byTime.encode(us)), us);
    assert.equal(byTime.encode(us), b64(us));
    for (const [at, written] of [
      ['2026-06-01T12:00:00.123000Z', '2026-06-01T12:00:00.123Z'],
      ['2026-06-01T12:00:00.000000Z', '2026-06-01T12:00:00.000Z'],
      ['2026-06-01T12:00:00.000001Z', '2026-06-01T12:00:00.000001Z'],
      ['2026-06-01T12:00:00.999999Z', '2026-06-01T12:00:00.999999Z'],
      ['0001-01-01T00:00:00.000001Z', '0001-01-01T00:00:00.000001Z'],
      ['9999-12-31T23:59:59.999999Z', '9999-12-31T23:59:59.999999Z'],
    ] as const) {
      const c = byTime.encode([at, 'x']);
      assert.equal(c, b64([written, 'x']), at);
      assert.deepEqual(byTime.decode(c), [written, 'x'], at);
    }
    // Only timestamp parts are rewritten.
    const byName = keysetCursor('text');
    assert.deepEqual(byName.decode(byName.encode(['2026-06-01T12:00:00.123000Z'])), [
      '2026-06-01T12:00:00.123000Z',
    ]);
  });

  test('timestamps: only what toISOString writes, within what timestamptz parameters carry', () => {
    for (const at of [
      'not-a-date',
      '0',
      '2020',
      '2026-06-01',
      '2026-06-01T12:00:00Z', // no milliseconds: not what encode wrote
      '2026-06-01T12:00:00.000+00:00',
      '2026-02-30T00:00:00.000Z', // Date.parse rolls it over to March
      '0000-01-01T00:00:00.000Z',
      '+010000-01-01T00:00:00.000Z',
      '-000001-01-01T00:00:00.000Z',
      ' 2026-06-01T12:00:00.000Z',
      // Microseconds: six digits, never a whole millisecond (encode writes those with three).
      '2026-06-01T12:00:00.123000Z',
      '2026-06-01T12:00:00.000000Z',
      '2026-06-01T12:00:00.1234Z',
      '2026-06-01T12:00:00.12345Z',
      '2026-06-01T12:00:00.1234567Z',
      '2026-06-01T12:00:00.123456789Z',
      '2026-06-01T12:00:00.123456',
      '2026-06-01T12:00:00.123456+00:00',
      '2026-06-01 12:00:00.123456Z',
      '2026-06-01T12:00:00.12345aZ',
      '2026-06-01T12:00:00.123\u0000456Z',
      '2026-02-30T00:00:00.000001Z',
      '2026-06-01T24:00:00.000001Z',
      '0000-12-31T23:59:59.999999Z',
      '+010000-01-01T00:00:00.000001Z',
      '10000-01-01T00:00:00.000001Z',
      'infinity',
    ]) {
      refused(byTime, b64([at, 'x']));
    }
    refused(byTime, b64([123, 'x']));
    refused(byTime, b64([null, 'x']));
  });

  test('text: 1-255 storable characters', () => {
    const at = '2026-06-01T12:00:00.000Z';
    for (const id of ['', 'a\u0000b', '\ud800', 'x'.repeat(256)]) refused(byTime, b64([at, id]));
    refused(byTime, b64([at, 7]));
    refused(byTime, b64([at, ['x']]));
    assert.deepEqual(byTime.decode(b64([at, 'x'.repeat(255)])), [at, 'x'.repeat(255)]);
  });

  test('bigint: a positive decimal that fits in bigint, as a string', () => {
    for (const v of [
      ['abc'],
      [1e30],
      [9.5],
      [7],
      ['9.5'],
      ['1e3'],
      ['0'],
      ['-1'],
      ['01'],
      ['9223372036854775808'],
      ['99999999999999999999'],
      ['1\u0000'],
      [' 1'],
    ]) {
      refused(byNumber, b64(v));
    }
  });

  test('shape: a JSON array of exactly the declared parts, in exact base64url', () => {
    for (const c of [
      '',
      '!!!!',
      '%00',
      '====',
      `${b64(['1'])}!`, // Node's decoder would skip the '!'
      `${b64(['1'])}=`,
      b64(['1']).replace(/[A-Za-z]/, (ch) => (ch === ch.toUpperCase() ? ch.toLowerCase() : ch.toUpperCase())),
      b64('not json'),
      Buffer.from([0x5b, 0x22, 0xff, 0x22, 0x5d]).toString('base64url'), // ["\xff"]: not UTF-8
      b64({}),
      b64(null),
      b64('"1"'),
      b64([]),
      b64(['1', '2']),
      b64([['1']]),
      b64('[1e400]'),
      'A'.repeat(1025),
    ]) {
      refused(byNumber, c);
    }
    refused(byTime, b64(['2026-06-01T12:00:00.000Z']));
    refused(byTime, b64(['2026-06-01T12:00:00.000Z', 'x', 'y']));
  });

  test('decode refuses a non-string (a library caller passing anything)', () => {
    refused(byNumber, 123 as unknown as string);
    refused(byNumber, undefined as unknown as string);
  });
});
