// The filter language: what it accepts, its bounds (a hostile filter is refused), its jsonpath
// form and its JavaScript evaluation. filter-sql.test.ts checks the two agree in PostgreSQL.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isInvalidFilterError } from '../errors.js';
import { compileFilter, evaluateFilter, FILTER_LIMITS, type FilterDocument, parseFilter } from './index.js';

const doc = (data: unknown, type = 'order.created', resource: string | null = 'order:1'): FilterDocument => ({
  type,
  resource,
  data,
});
const passes = (filter: unknown, d: FilterDocument) => evaluateFilter(parseFilter(filter), d);

const refused = (filter: unknown, pattern: RegExp) => {
  assert.throws(
    () => parseFilter(filter),
    (e: unknown) => {
      assert.ok(isInvalidFilterError(e), String(e));
      assert.equal((e as { code: string }).code, 'SURETY_INVALID_FILTER');
      assert.match((e as Error).message, pattern);
      const errors = (e as { errors: { path: string }[] }).errors;
      assert.ok(errors.length > 0 && errors.every((x) => x.path.startsWith('/filter')));
      return true;
    },
  );
};

describe('the language', () => {
  const order = doc({ amount: 120, currency: 'EUR', tags: ['vip', 'eu'], customer: { country: 'FR' } });

  test('equality, $eq, $ne, on the envelope and data; keys of one object all hold', () => {
    assert.equal(passes({ 'data.currency': 'EUR' }, order), true);
    assert.equal(passes({ 'data.currency': 'USD' }, order), false);
    assert.equal(passes({ type: 'order.created', 'data.customer.country': { $eq: 'FR' } }, order), true);
    assert.equal(passes({ type: 'order.created', 'data.customer.country': 'DE' }, order), false);
    assert.equal(passes({ 'data.currency': { $ne: 'USD' } }, order), true);
    assert.equal(passes({ resource: 'order:1' }, order), true);
    assert.equal(passes({ resource: null }, doc({}, 't.x', null)), true);
  });

  test('numbers order; strings and booleans do not (refused)', () => {
    assert.equal(passes({ 'data.amount': { $gt: 100, $lte: 120 } }, order), true);
    assert.equal(passes({ 'data.amount': { $lt: 120 } }, order), false);
    assert.equal(passes({ 'data.amount': { $gte: 120.5 } }, order), false);
    assert.equal(passes({ 'data.currency': { $gt: 1 } }, order), false, 'a string is not more than a number');
    refused({ 'data.currency': { $gt: 'A' } }, /compares numbers only/);
    refused({ 'data.flag': { $lt: true } }, /compares numbers only/);
  });

  test('$in and $nin; an array field matches when one of its items does', () => {
    assert.equal(passes({ 'data.currency': { $in: ['EUR', 'GBP'] } }, order), true);
    assert.equal(passes({ 'data.currency': { $nin: ['EUR', 'GBP'] } }, order), false);
    assert.equal(passes({ 'data.tags': 'vip' }, order), true);
    assert.equal(passes({ 'data.tags': { $in: ['us', 'eu'] } }, order), true);
    assert.equal(passes({ 'data.tags': { $nin: ['vip'] } }, order), false);
  });

  test('a missing field: equality fails, $ne / $nin / $exists:false pass', () => {
    assert.equal(passes({ 'data.missing': 1 }, order), false);
    assert.equal(passes({ 'data.missing': { $ne: 1 } }, order), true);
    assert.equal(passes({ 'data.missing': { $nin: [1] } }, order), true);
    assert.equal(passes({ 'data.missing': { $exists: false } }, order), true);
    assert.equal(passes({ 'data.customer': { $exists: true } }, order), true);
    assert.equal(passes({ 'data.amount.cents': { $exists: true } }, order), false);
  });

  test('values of other types are never equal: "1" is not 1, null is not false', () => {
    const d = doc({ n: 1, z: null });
    assert.equal(passes({ 'data.n': '1' }, d), false);
    assert.equal(passes({ 'data.n': { $ne: '1' } }, d), true);
    assert.equal(passes({ 'data.z': false }, d), false);
    assert.equal(passes({ 'data.z': null }, d), true);
  });

  test('$and, $or, $not (of a filter and of a condition)', () => {
    const f = {
      $or: [{ 'data.currency': 'USD' }, { $and: [{ 'data.amount': { $gt: 100 } }, { 'data.tags': 'vip' }] }],
    };
    assert.equal(passes(f, order), true);
    assert.equal(passes({ $not: f }, order), false);
    assert.equal(passes({ 'data.amount': { $not: { $gt: 200 } } }, order), true);
  });

  test('a step into an array looks into its objects: data.lines.sku', () => {
    const d = doc({
      lines: [
        { sku: 'a', qty: 1 },
        { sku: 'b', qty: 5 },
      ],
    });
    assert.equal(passes({ 'data.lines.sku': 'b' }, d), true);
    assert.equal(passes({ 'data.lines.qty': { $gt: 4 } }, d), true);
    assert.equal(passes({ 'data.lines.qty': { $gt: 5 } }, d), false);
  });

  test('the jsonpath form quotes every key and string, and writes negatives in parentheses', () => {
    assert.equal(
      compileFilter(parseFilter({ 'data.a"b': 'x"\\', 'data.n': { $gt: -1.5 } })),
      '(exists($."data"."a\\"b" ? (@ == "x\\"\\\\")) && exists($."data"."n" ? (@ > (-1.5))))',
    );
    assert.equal(
      compileFilter(parseFilter({ 'data.n': { $nin: [1, null] } })),
      '!exists($."data"."n" ? (@ == 1 || @ == null))',
    );
  });
});

describe('refused when set (hostile or mistaken filters)', () => {
  test('not an object, empty, unknown operator, path outside the envelope', () => {
    refused([], /must be an object/);
    refused('data.a', /must be an object/);
    refused({}, /must not be empty/);
    refused({ 'data.a': { $regex: '.*' } }, /unknown operator \$regex/);
    refused({ $where: 'x' }, /unknown operator \$where/);
    refused({ amount: 1 }, /a path starts with type, resource, data/);
    refused({ 'type.x': 1 }, /type has no fields/);
    refused({ 'data..a': 1 }, /empty segment/);
    refused({ 'data.a': [1, 2] }, /\$in/);
    refused({ 'data.a': { b: 1 } }, /objects are not comparable/);
    refused({ 'data.a': { $in: [{ x: 1 }] } }, /string, number, boolean or null/);
    refused({ 'data.a': { $exists: 1 } }, /\$exists takes true or false/);
    refused({ 'data.a': { $in: [] } }, /at least one item/);
  });

  test('too deep, too wide, too many nodes, too long, too large', () => {
    let deep: unknown = { 'data.a': 1 };
    for (let i = 0; i < FILTER_LIMITS.depth; i++) deep = { $not: deep };
    refused(deep, /nested more than 6 levels/);
    let nested: unknown = { 'data.a': 1 };
    for (let i = 0; i < 10_000; i++) nested = { $and: [nested] };
    refused(nested, /nested|larger than/);
    const wide = Object.fromEntries(
      Array.from({ length: FILTER_LIMITS.width + 1 }, (_, i) => [`data.k${i}`, i]),
    );
    refused(wide, /more than 50 keys/);
    refused(
      { 'data.a': { $in: Array.from({ length: FILTER_LIMITS.width + 1 }, (_, i) => i) } },
      /at most 50 items/,
    );
    const many = {
      $and: Array.from({ length: 5 }, () => ({ 'data.a': { $in: Array.from({ length: 45 }, (_, i) => i) } })),
    };
    refused(many, /more than 200 conditions/);
    refused({ 'data.a': 'x'.repeat(FILTER_LIMITS.stringLength + 1) }, /at most 256 characters/);
    refused({ [`data.${'k'.repeat(65)}`]: 1 }, /at most 64 characters/);
    refused({ 'data.a.b.c.d.e.f.g.h': 1 }, /at most 8 segments/);
    const big = { 'data.a': { $in: Array.from({ length: 50 }, () => 'y'.repeat(250)) } };
    refused({ $or: [big, big, big] }, /larger than 16384 bytes/);
    refused({ 'data.a': Number.NaN }, /string, number, boolean or null|finite/);
    refused({ 'data.a': '\u0000' }, /NUL/);
    refused({ 'data.\ud800': 1 }, /NUL or unpaired surrogate/);
  });

  test('at the bounds it is accepted', () => {
    let deep: unknown = { 'data.a': 1 };
    for (let i = 1; i < FILTER_LIMITS.depth; i++) deep = { $not: deep };
    parseFilter(deep);
    parseFilter(Object.fromEntries(Array.from({ length: FILTER_LIMITS.width }, (_, i) => [`data.k${i}`, i])));
    parseFilter({ 'data.a.b.c.d.e.f.g': 'x'.repeat(FILTER_LIMITS.stringLength) });
  });
});
