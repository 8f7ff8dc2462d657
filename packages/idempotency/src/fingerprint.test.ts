import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalJson, fingerprint } from './fingerprint.js';
import { checkKey, deriveKey } from './key.js';

test('canonical JSON ignores key order and whitespace, keeps array order', () => {
  assert.equal(
    canonicalJson(JSON.parse('{ "b": 1, "a": {"d": [2, 1], "c": null} }')),
    '{"a":{"c":null,"d":[2,1]},"b":1}',
  );
  assert.notEqual(canonicalJson([1, 2]), canonicalJson([2, 1]));
  assert.equal(canonicalJson('x"y'), '"x\\"y"');
});

test('fingerprint covers method, target and body', () => {
  const base = { method: 'POST', url: '/v1/payments', body: { amount: '1', currency: 'USD' } };
  const fp = fingerprint(base);
  assert.equal(fp, fingerprint({ ...base, body: { currency: 'USD', amount: '1' } }));
  assert.equal(fp, fingerprint({ ...base, method: 'post' }));
  assert.notEqual(fp, fingerprint({ ...base, method: 'PUT' }));
  assert.notEqual(fp, fingerprint({ ...base, url: '/v1/payments?x=1' }));
  assert.notEqual(fp, fingerprint({ ...base, body: { amount: '2', currency: 'USD' } }));
  // a raw string body and the JSON it happens to spell are different inputs
  assert.notEqual(fingerprint({ ...base, body: '{"a":1}' }), fingerprint({ ...base, body: { a: 1 } }));
  assert.equal(
    fingerprint({ ...base, body: Buffer.from('abc') }),
    fingerprint({ ...base, body: new Uint8Array([97, 98, 99]) }),
  );
  assert.notEqual(fingerprint({ ...base, body: undefined }), fingerprint({ ...base, body: '' }));
});

test('key validation: 1-255 visible ASCII', () => {
  const table: [string | string[] | undefined, boolean][] = [
    [undefined, true],
    ['k', true],
    ['a'.repeat(255), true],
    ['550e8400-e29b-41d4-a716-446655440000', true],
    ['', false],
    ['a'.repeat(256), false],
    ['has space', false],
    ['tab\there', false],
    ['naïve', false],
    ['\u0000', false],
    [['a', 'b'], false],
  ];
  for (const [value, ok] of table) assert.equal(checkKey(value).ok, ok, JSON.stringify(value));
});

test('key parsing: an RFC 8941 string is its value, so "k" and k are one key (issue 20)', () => {
  const key = (value: string) => {
    const checked = checkKey(value);
    return checked.ok ? checked.key : checked.code;
  };
  assert.equal(key('k'), 'k');
  assert.equal(key('"k"'), 'k');
  assert.equal(key('"8e03978e-40d5-43e8-bc93-6894a57f9324"'), '8e03978e-40d5-43e8-bc93-6894a57f9324');
  assert.equal(key('"a\\"b\\\\c"'), 'a"b\\c', 'the two escapes RFC 8941 allows');
  assert.equal(key(`"${'a'.repeat(255)}"`), 'a'.repeat(255), 'the limit counts the value, not the quotes');
  assert.equal(key(`"${'a'.repeat(256)}"`), 'idempotency_key_invalid');
  assert.equal(key('""'), 'idempotency_key_invalid', 'an empty string is an empty key');
  // Not RFC 8941 strings: kept as they are, as every key was before (bare tokens with a quote in them).
  assert.equal(key('"a\\x"'), '"a\\x"', 'an escape RFC 8941 does not allow');
  assert.equal(key('"a"b"'), '"a"b"', 'an unescaped quote inside');
  assert.equal(key('"k'), '"k');
  assert.equal(key('k"'), 'k"');
  assert.equal(key('"'), '"');
});

test('deriveKey is stable per (key, step) and differs across steps and keys', () => {
  assert.equal(deriveKey('k1', 'charge'), deriveKey('k1', 'charge'));
  assert.notEqual(deriveKey('k1', 'charge'), deriveKey('k1', 'refund'));
  assert.notEqual(deriveKey('k1', 'charge'), deriveKey('k2', 'charge'));
  assert.ok(checkKey(deriveKey('k1', 'charge')).ok);
});

test('canonicalJson: a body nested 100,000 levels deep does not overflow the stack', () => {
  const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
  assert.equal(canonicalJson(deep).length, 200_000);
  const deepObject = JSON.parse(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`) as unknown;
  assert.equal(canonicalJson(deepObject), `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`);
});
