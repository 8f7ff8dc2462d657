// Text from outside (a receiver's answer, an error message that quotes one) on its way into a
// PostgreSQL `text` column. PostgreSQL's UTF-8 text holds every Unicode scalar value except U+0000:
// a NUL fails the whole statement (SQLSTATE 22021, `invalid byte sequence for encoding "UTF8": 0x00`),
// on PostgreSQL and on PGlite alike. A JS string can also hold lone surrogates (after decoding, or
// after slicing a pair in half), which no UTF-8 can encode: the drivers' encoders turn them into
// U+FFFD silently. Both are replaced here, explicitly, one code unit for one, so that what is stored
// is what was meant to be stored and offsets still line up.

/** NUL, a high surrogate not followed by a low one, a low surrogate not preceded by a high one. */
const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const UNSTORABLE_TEST = new RegExp(UNSTORABLE.source);

/**
 * True when PostgreSQL's UTF-8 `text` can hold `value` exactly as it is (no NUL, no lone surrogate).
 * @example
 * isPgText('bad\0byte'); // false
 */
export const isPgText = (value: string): boolean => !UNSTORABLE_TEST.test(value);

/**
 * `value` made storable in a PostgreSQL `text` column: each NUL and each lone surrogate replaced by
 * U+FFFD (REPLACEMENT CHARACTER), everything else kept. With `maxLength` (UTF-16 code units), cut to
 * at most that many, never between the two halves of a surrogate pair (the pair is left out whole).
 * @default maxLength Infinity
 * @example
 * toPgText('bad\0byte'); // 'bad\uFFFDbyte'
 * toPgText('ab\u{1F600}', 3); // 'ab'
 */
export function toPgText(value: string, maxLength = Number.POSITIVE_INFINITY): string {
  let s = value;
  if (s.length > maxLength) {
    const end = Math.max(0, Math.floor(maxLength));
    const last = s.charCodeAt(end - 1);
    const next = s.charCodeAt(end);
    const splitsPair = last >= 0xd800 && last <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
    s = s.slice(0, splitsPair ? end - 1 : end);
  }
  return isPgText(s) ? s : s.replace(UNSTORABLE, '\uFFFD');
}
