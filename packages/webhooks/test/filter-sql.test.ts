// The jsonpath translation of a filter (src/filter/jsonpath.ts), run by PostgreSQL as the publishing
// statement runs it (jsonb_path_match in lax mode, silent), agrees with the JavaScript evaluator
// (src/filter/evaluate.ts) on generated filters and documents: a seeded generator, so a failure is
// reproducible. PGlite, and PostgreSQL with DATABASE_URL.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import { compileFilter, evaluateFilter, type FilterDocument, parseFilter } from '../src/filter/index.js';

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
});
after(() => db.close());

// mulberry32: small, seeded, good enough to spread cases.
function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = ['a', 'b', 'c'];
const SCALARS = [0, 1, -1, 2.5, 1e21, 'x', 'y', '', '1', 'é"\\\n', true, false, null];

function gen(r: () => number) {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const value = (depth: number): unknown => {
    const k = r();
    if (depth > 2 || k < 0.5) return pick(SCALARS);
    if (k < 0.75) return Array.from({ length: Math.floor(r() * 3) }, () => value(depth + 1));
    return Object.fromEntries(KEYS.filter(() => r() < 0.6).map((key) => [key, value(depth + 1)]));
  };
  const path = () => {
    const k = r();
    if (k < 0.08) return 'type';
    if (k < 0.14) return 'resource';
    return ['data', ...Array.from({ length: 1 + Math.floor(r() * 3) }, () => pick(KEYS))].join('.');
  };
  const condition = (): unknown => {
    const k = r();
    const num = pick([0, 1, -1, 2.5, 1e21]);
    if (k < 0.2) return pick(SCALARS);
    if (k < 0.3) return { $eq: pick(SCALARS) };
    if (k < 0.4) return { $ne: pick(SCALARS) };
    if (k < 0.55) return { [pick(['$gt', '$gte', '$lt', '$lte'])]: num };
    if (k < 0.7)
      return {
        [pick(['$in', '$nin'])]: Array.from({ length: 1 + Math.floor(r() * 3) }, () => pick(SCALARS)),
      };
    if (k < 0.85) return { $exists: r() < 0.5 };
    return { $not: { $gt: num } };
  };
  const filter = (depth: number): Record<string, unknown> => {
    const k = r();
    if (depth < 3 && k < 0.15) return { [pick(['$and', '$or'])]: [filter(depth + 1), filter(depth + 1)] };
    if (depth < 3 && k < 0.22) return { $not: filter(depth + 1) };
    return Object.fromEntries(Array.from({ length: 1 + Math.floor(r() * 2) }, () => [path(), condition()]));
  };
  const doc = (): FilterDocument => ({
    type: pick(['order.created', 'x']),
    resource: pick([null, 'order:1', 'x']),
    data: r() < 0.1 ? value(0) : Object.fromEntries(KEYS.map((key) => [key, value(1)])),
  });
  return { filter: () => filter(0), doc };
}

test('PostgreSQL and the JavaScript evaluator agree on 3,000 generated (filter, document) pairs', async () => {
  const g = gen(rng(37));
  const cases = Array.from({ length: 3000 }, () => {
    const filter = g.filter();
    const node = parseFilter(filter);
    const doc = g.doc();
    return { filter, doc, path: compileFilter(node), expected: evaluateFilter(node, doc) };
  });
  const { rows } = await db.sql.query<{ i: string; m: boolean | null }>(
    `select i::text, jsonb_path_match(d::jsonb, p::jsonpath, '{}', true) as m
       from unnest($1::text[], $2::text[]) with ordinality as t(d, p, i)`,
    [cases.map((c) => JSON.stringify(c.doc)), cases.map((c) => c.path)],
  );
  const disagree = rows.filter((row) => (row.m === true) !== cases[Number(row.i) - 1]!.expected);
  const shown = disagree.slice(0, 3).map((row) => {
    const c = cases[Number(row.i) - 1]!;
    return { filter: c.filter, doc: c.doc, path: c.path, sql: row.m, js: c.expected };
  });
  assert.deepEqual(shown, []);
  // Both outcomes are exercised, so agreement is not "always false".
  const matched = cases.filter((c) => c.expected).length;
  assert.ok(matched > 300 && matched < 2700, `matched ${matched} of 3000`);
  // jsonb_path_match never answered unknown: the predicate is two-valued.
  assert.equal(rows.filter((row) => row.m === null).length, 0);
});
