// A filter against its event types' schemas: a path no type has, or a value no schema there admits,
// is refused; what the schemas cannot decide passes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonSchema } from '@surety/events';
import { isInvalidFilterError, parseFilter } from '@surety/webhooks';
import { checkFilterSchemas } from './schema-paths.js';

const SCHEMAS: Record<string, JsonSchema> = {
  'order.paid': {
    type: 'object',
    properties: {
      amount: { type: 'integer' },
      currency: { type: 'string', enum: ['EUR', 'USD'] },
      lines: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } } } },
      meta: { type: 'object', additionalProperties: { type: 'string' } },
      open: { type: 'object' },
      tags: { type: 'array', items: { type: 'string' } },
      either: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    },
  },
  'order.refunded': { type: 'object', properties: { reason: { type: 'string' } } },
};
const check = (filter: object, types = ['order.paid']) =>
  checkFilterSchemas(parseFilter(filter), types, (t) => SCHEMAS[t]);
const refused = (filter: object, pattern: RegExp, types = ['order.paid']) =>
  assert.throws(
    () => check(filter, types),
    (e: unknown) => isInvalidFilterError(e) && pattern.test((e as Error).message),
  );

test('paths and values the schemas admit pass', () => {
  check({ 'data.amount': { $gt: 1.5 }, 'data.currency': { $in: ['EUR'] } });
  check({ 'data.lines.sku': 'a', 'data.meta.anything': 'x', 'data.open.deep.er': 1, 'data.tags': 'vip' });
  check({ 'data.either': null, type: 'order.paid', resource: 'x' });
  check({ 'data.reason': 'x' }, ['order.paid', 'order.refunded']);
  check({ 'data.whatever': 1 }, ['*']);
  check({ 'data.whatever': 1 }, ['order.paid', 'unknown.type']);
});

test('a path no subscribed type has, or a value it never holds, is refused', () => {
  refused({ 'data.amont': 1 }, /no field data\.amont in order\.paid/);
  refused({ 'data.amount': '100' }, /"100" is never the value of data\.amount/);
  refused({ 'data.amount': 1.5 }, /1\.5 is never/);
  refused({ 'data.currency': 'GBP' }, /"GBP" is never/);
  refused({ 'data.lines.qty': { $exists: true } }, /no field data\.lines\.qty/);
  refused({ 'data.tags': 1 }, /1 is never/);
  refused({ $not: { 'data.either': 3 } }, /3 is never/);
  refused({ 'data.amount.cents': 1 }, /no field/);
  refused({ type: 'order.shipped' }, /not subscribed to "order\.shipped"/);
  refused({ 'data.reason': 'x' }, /no field data\.reason in order\.paid$/);
  // Names of Object.prototype are not fields of a schema's properties.
  refused({ 'data.constructor': 'x' }, /no field data\.constructor/);
  refused({ 'data.__proto__': 'x' }, /no field data\.__proto__/);
});
