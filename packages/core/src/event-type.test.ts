import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EVENT_TYPE_PATTERN, EVENT_TYPE_PATTERN_SOURCE, isEventType } from './event-type.js';

test('event types are lower-case dot-separated names of at most 100 characters', () => {
  for (const ok of ['order.shipped', 'invoice.payment_failed', 'a.b.c', `a.${'b'.repeat(98)}`]) {
    assert.equal(isEventType(ok), true, ok);
  }
  for (const bad of [
    'order',
    'Order.shipped',
    'order.',
    '.order',
    'order..x',
    '1.x',
    'a.b-c',
    `a.${'b'.repeat(99)}`,
    7,
  ]) {
    assert.equal(isEventType(bad), false, String(bad));
  }
});

test('the JSON Schema pattern is the same expression', () => {
  assert.equal(EVENT_TYPE_PATTERN_SOURCE, '^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+$');
  assert.equal(new RegExp(EVENT_TYPE_PATTERN_SOURCE).source, EVENT_TYPE_PATTERN.source);
});
