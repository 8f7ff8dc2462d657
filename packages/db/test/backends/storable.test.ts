// The storable-string rule against the database itself (PGlite, and PostgreSQL with DATABASE_URL):
// every string the rule lets through comes back byte for byte from a text and a jsonb column, and
// every string it refuses is one PostgreSQL refuses or would change. So the rule is neither looser
// nor stricter than the database.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { findUnstorable, isStorableTimestamp, printable, unstorableReason } from '../../src/storable.js';
import { createTestDatabase, type TestDatabase } from '../../src/testing.js';

let db: TestDatabase;
let t: string;
before(async () => {
  db = await createTestDatabase({ max: 1 });
  t = `"${db.schema}".strings`;
  await db.sql.query(`create schema "${db.schema}"`);
  await db.sql.query(`create table ${t} (id serial primary key, s text, j jsonb, at timestamptz)`);
});
after(() => db.close());

/** What the database does with `s`: kept as sent, changed, or refused (with its SQLSTATE). */
async function roundTrip(s: string): Promise<{ text: string; jsonb: string }> {
  const outcome = async (column: 's' | 'j', value: string) => {
    try {
      const { rows } = await db.sql.query<{ v: unknown }>(
        `insert into ${t} (${column}) values ($1${column === 'j' ? '::jsonb' : ''}) returning ${column} as v`,
        [value],
      );
      const back = column === 'j' ? (rows[0]!.v as { k: string }).k : rows[0]!.v;
      return back === s ? 'kept' : 'changed';
    } catch (error) {
      return `refused ${(error as { code?: string }).code}`;
    }
  };
  return { text: await outcome('s', s), jsonb: await outcome('j', JSON.stringify({ k: s })) };
}

const ACCEPTED = [
  '',
  'plain',
  'é ü ß 日本語',
  '😀 \ud83d\ude00', // a pair written as escapes is one character
  '\u0001\u001f\u007f', // other control characters are stored as they are
  '\ufffe\uffff', // noncharacters are valid scalar values
  '\u2028\u2029',
  '\\u0000', // a backslash and five characters, not a NUL
  '\udbff\udfff', // the last code point, U+10FFFF
];
const REFUSED: [string, 'nul' | 'lone_surrogate'][] = [
  ['\u0000', 'nul'],
  ['a\u0000', 'nul'],
  ['\ud800', 'lone_surrogate'],
  ['x\udbffy', 'lone_surrogate'],
  ['\udc00', 'lone_surrogate'],
  ['\udc00\ud800', 'lone_surrogate'], // a pair in the wrong order is two lone halves
  ['😀\ud83d', 'lone_surrogate'],
];

describe('unstorableReason agrees with the database', () => {
  for (const s of ACCEPTED) {
    test(`accepted: ${JSON.stringify(s)}`, async () => {
      assert.equal(unstorableReason(s), undefined);
      assert.deepEqual(await roundTrip(s), { text: 'kept', jsonb: 'kept' });
    });
  }
  for (const [s, reason] of REFUSED) {
    test(`refused (${reason}): ${JSON.stringify(s)}`, async () => {
      assert.equal(unstorableReason(s), reason);
      const r = await roundTrip(s);
      // NUL: text 22021, jsonb 22P05. A lone surrogate: jsonb 22P02; text silently gets U+FFFD.
      assert.ok(r.text !== 'kept' && r.jsonb !== 'kept', JSON.stringify(r));
      assert.match(r.jsonb, /^refused 22P0[25]$/);
    });
  }
});

describe('findUnstorable', () => {
  test('walks keys, values and array elements at any depth, and names the place', () => {
    assert.equal(findUnstorable({ a: ['x', { b: 'y' }], n: 1, z: null, t: true }), undefined);
    assert.deepEqual(findUnstorable({ a: ['x', { b: 'y\u0000' }] })?.path, '/a/1/b');
    assert.equal(findUnstorable({ metadata: { 'k\ud800': 'v' } })?.path, '/metadata/k\\ud800');
    assert.equal(findUnstorable({ metadata: { 'k\ud800': 'v' } })?.reason, 'lone_surrogate');
    assert.match(findUnstorable({ 'k\u0000': 1 })!.message, /^key contains U\+0000/);
    assert.equal(findUnstorable('\u0000')?.path, '');
    assert.equal(findUnstorable('\u0000', '/since')?.path, '/since');
  });

  test('pointers are RFC 6901 escaped and carry nothing unstorable', () => {
    const found = findUnstorable({ 'a/b~c\u0000': 'v' })!;
    assert.equal(found.path, '/a~1b~0c\\u0000');
    assert.equal(unstorableReason(found.path), undefined);
    assert.equal(unstorableReason(found.message), undefined);
    assert.equal(printable('x\udc00\u0000'), 'x\\udc00\\u0000');
  });

  test('follows toJSON, as JSON.stringify does', () => {
    assert.equal(findUnstorable({ at: new Date(0) }), undefined);
    assert.equal(findUnstorable({ v: { toJSON: () => 'x\u0000' } })?.path, '/v');
  });

  test('a value nested 100,000 deep does not overflow the stack', () => {
    let deep: unknown = '\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    assert.equal(findUnstorable(deep)?.reason, 'nul');
  });
});

describe('isStorableTimestamp agrees with the database at its edges', () => {
  const cases: [string, boolean][] = [
    ['0001-01-01T00:00:00.000Z', true],
    ['9999-12-31T23:59:59.999Z', true],
    ['2026-06-01T12:00:00.000Z', true],
    ['0000-12-31T23:59:59.999Z', false],
    ['0000-01-01T00:00:00.000Z', false],
    ['+010000-01-01T00:00:00.000Z', false],
    ['-000001-01-01T00:00:00.000Z', false],
  ];
  for (const [iso, storable] of cases) {
    test(`${iso}: ${storable ? 'storable' : 'refused'}`, async () => {
      const at = new Date(iso);
      assert.equal(isStorableTimestamp(at), storable);
      // What the code sends is the ISO form: the rule says yes exactly when PostgreSQL reads it back.
      // (Read back as epoch milliseconds: PGlite's own Date parser reads year 0001 as 2001.)
      const stored = await db.sql
        .query<{ ms: number }>(
          `insert into ${t} (at) values ($1) returning (extract(epoch from at) * 1000)::float8 as ms`,
          [at.toISOString()],
        )
        .then((r) => Number(r.rows[0]!.ms) === at.getTime())
        .catch(() => false);
      assert.equal(stored, storable);
    });
  }
  test('not a date', () => {
    assert.equal(isStorableTimestamp(new Date('nope')), false);
    assert.equal(isStorableTimestamp(Number.POSITIVE_INFINITY), false);
  });
});
