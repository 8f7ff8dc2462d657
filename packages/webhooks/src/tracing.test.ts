import assert from 'node:assert/strict';
import { test } from 'node:test';
import { storedSpanContext } from './tracing.js';

test('a stored trace context is read back strictly (JSON text or object); anything else links nothing', () => {
  const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  const sc = storedSpanContext({ traceparent });
  assert.deepEqual(sc, {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: 1,
    isRemote: true,
  });
  assert.deepEqual(storedSpanContext(JSON.stringify({ traceparent })), sc);
  for (const bad of [
    null,
    'not json',
    { traceparent: '01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    { traceparent: '00-00000000000000000000000000000000-b7ad6b7169203331-01' },
    { traceparent: `${traceparent} ` },
    { traceparent: 42 },
  ]) {
    assert.equal(storedSpanContext(bad), undefined, JSON.stringify(bad));
  }
});
