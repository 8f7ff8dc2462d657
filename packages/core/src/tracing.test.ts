import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashKey } from './node.js';
import { errorCode, traceableUrl } from './tracing.js';

test('a URL reaches a span without user, password, query or fragment', () => {
  assert.deepEqual(traceableUrl('https://user:pa55@api.example.com:8443/v1/pay?api_key=sk_live_x#frag'), {
    full: 'https://api.example.com:8443/v1/pay',
    host: 'api.example.com',
    port: 8443,
  });
  assert.equal(traceableUrl('http://[::1]/x?y=1')!.full, 'http://[::1]/x');
  assert.equal(traceableUrl('https://h.example/')!.port, 443);
  assert.equal(
    traceableUrl('https://hooks.example.com/in?token=abc&sig=1')!.full,
    'https://hooks.example.com/in',
  );
  assert.equal(traceableUrl('https://u:p@hooks.example.com/in#x')!.full, 'https://hooks.example.com/in');
  assert.equal(traceableUrl('not a url'), undefined);
});

test('an idempotency key is hashed: 16 hex digits of its SHA-256, never the key', () => {
  assert.equal(hashKey('k-1'), hashKey('k-1'));
  assert.match(hashKey('k-1'), /^[0-9a-f]{16}$/);
  assert.notEqual(hashKey('k-1'), hashKey('k-2'));
});

test('error.type from an error code, else _OTHER', () => {
  assert.equal(errorCode(Object.assign(new Error('x'), { code: 'SURETY_X' })), 'SURETY_X');
  assert.equal(errorCode(Object.assign(new Error('x'), { code: 42 })), '_OTHER');
  assert.equal(errorCode(null), '_OTHER');
});
