import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isPgText, toPgText } from './pg-text.js';

const R = '\uFFFD';

test('what PostgreSQL text cannot hold is replaced by U+FFFD, one for one', () => {
  const table: [string, string][] = [
    ['', ''],
    ['plain ascii', 'plain ascii'],
    ['bad\0byte', `bad${R}byte`],
    ['\0\0', `${R}${R}`],
    // lone surrogates, as a JS string can hold them after decoding or slicing
    ['a\ud800b', `a${R}b`],
    ['a\udc00b', `a${R}b`],
    ['\ud800', R],
    ['\udfff', R],
    ['\udc00\ud800', `${R}${R}`], // reversed pair: both lone
    // a real pair is kept whole
    ['emoji \ud83d\ude00 ok', 'emoji \ud83d\ude00 ok'],
    ['\ud83d\ude00\0\ud83d\ude00', `\ud83d\ude00${R}\ud83d\ude00`],
    // characters PostgreSQL stores as they are: controls, noncharacters, U+FFFD itself, a BOM
    ['\x01\x1f\x7f\u0085\ufffe\uffff\ufeff', '\x01\x1f\x7f\u0085\ufffe\uffff\ufeff'],
    [R, R],
  ];
  for (const [input, expected] of table) {
    assert.equal(toPgText(input), expected, JSON.stringify(input));
    assert.equal(toPgText(input).length, input.length, 'same length: offsets in the excerpt still line up');
    assert.equal(isPgText(input), input === expected, JSON.stringify(input));
    assert.ok(isPgText(toPgText(input)));
  }
});

test('a length cap never cuts a surrogate pair in half', () => {
  assert.equal(toPgText('abcdef', 3), 'abc');
  assert.equal(toPgText('ab\ud83d\ude00', 3), 'ab', 'the pair would straddle the cap: dropped whole');
  assert.equal(toPgText('ab\ud83d\ude00', 4), 'ab\ud83d\ude00');
  assert.equal(toPgText('a\0c', 2), `a${R}`);
  assert.equal(toPgText('\ud800x', 1), R, 'a lone high surrogate at the cap is replaced, not dropped');
  assert.equal(toPgText('abc', 0), '');
  assert.equal(toPgText('x'.repeat(5000), 1024).length, 1024);
});

test('every UTF-16 code unit alone, and around a NUL, comes out storable', () => {
  // Exhaustive over the BMP: each unit alone and each unit next to a NUL.
  for (let u = 0; u <= 0xffff; u++) {
    const c = String.fromCharCode(u);
    for (const s of [c, `${c}\0`, `\0${c}`]) {
      const out = toPgText(s);
      assert.ok(isPgText(out), `U+${u.toString(16)}`);
      assert.ok(!out.includes('\0'));
      // what is kept survives a UTF-8 round trip unchanged (no silent U+FFFD from the encoder)
      assert.equal(Buffer.from(out, 'utf8').toString('utf8'), out, `U+${u.toString(16)}`);
    }
  }
});
