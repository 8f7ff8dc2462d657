import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errorType } from './tracing.js';

test('error.type is a low-cardinality code', () => {
  assert.equal(errorType(Object.assign(new Error('x'), { code: 'ECONNRESET' })), 'ECONNRESET');
  assert.equal(
    errorType(new TypeError('fetch failed', { cause: { code: 'UND_ERR_SOCKET' } })),
    'UND_ERR_SOCKET',
  );
  assert.equal(errorType(new RangeError('r')), 'RangeError');
  assert.equal(errorType(null), '_OTHER');
});
