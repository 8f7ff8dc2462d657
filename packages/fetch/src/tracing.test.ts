import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errorType, hashKey, traceableUrl } from './tracing.js';

test('a URL reaches a span without user, password, query or fragment', () => {
  assert.deepEqual(traceableUrl('https://user:pa55@api.example.com:8443/v1/pay?api_key=sk_live_x#frag'), {
    full: 'https://api.example.com:8443/v1/pay',
    host: 'api.example.com',
    port: 8443,
  });
  assert.equal(traceableUrl('http://[::1]/x?y=1')!.full, 'http://[::1]/x');
  assert.equal(traceableUrl('https://h.example/')!.port, 443);
  assert.equal(traceableUrl('not a url'), undefined);
});

test('an idempotency key is hashed: 16 hex digits of its SHA-256, never the key', () => {
  assert.equal(hashKey('k-1'), hashKey('k-1'));
  assert.match(hashKey('k-1'), /^[0-9a-f]{16}$/);
  assert.notEqual(hashKey('k-1'), hashKey('k-2'));
});

test('error.type is a low-cardinality code', () => {
  assert.equal(errorType(Object.assign(new Error('x'), { code: 'ECONNRESET' })), 'ECONNRESET');
  assert.equal(
    errorType(new TypeError('fetch failed', { cause: { code: 'UND_ERR_SOCKET' } })),
    'UND_ERR_SOCKET',
  );
  assert.equal(errorType(new RangeError('r')), 'RangeError');
  assert.equal(errorType(null), '_OTHER');
});
