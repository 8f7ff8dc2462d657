// cursorTimestampSql and the codec agree with PostgreSQL (PGlite, and with DATABASE_URL a server):
// the text it selects is a timestamp part encode() writes and decode() accepts, and bound back as
// $1::timestamptz it is the same instant, to the microsecond, whatever the session's settings.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { cursorTimestampSql, keysetCursor } from '../../src/cursor.js';
import { createTestDatabase, type TestDatabase } from '../../src/testing.js';

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase({ max: 1 });
});
after(() => db.close());

const byTime = keysetCursor('timestamp', 'text');
const INSTANTS = [
  '2026-06-01T12:00:00.123456Z',
  '2026-06-01T12:00:00.123000Z',
  '2026-06-01T12:00:00.000001Z',
  '2026-06-01T12:00:00.999999Z',
  '2024-02-29T23:59:59.500000Z',
  '0001-01-01T00:00:00.000000Z',
  '0999-07-04T01:02:03.000004Z',
  '9999-12-31T23:59:59.999999Z',
];

test('the selected text round-trips through the codec and back to the same instant', async () => {
  // Settings that would change how timestamptz is written as text, had the cursor used that.
  await db.sql.query(`set timezone = 'America/St_Johns'`);
  await db.sql.query(`set datestyle = 'SQL, DMY'`);
  try {
    for (const instant of INSTANTS) {
      const { rows } = await db.sql.query<{ key: string }>(
        `select ${cursorTimestampSql('x')} as key from (select $1::timestamptz as x) v`,
        [instant],
      );
      const key = rows[0]!.key;
      assert.equal(key, instant);
      const [at] = byTime.decode(byTime.encode([key, 'x']));
      const back = await db.sql.query<{ same: boolean; key: string }>(
        `select $1::timestamptz = $2::timestamptz as same, ${cursorTimestampSql('$1::timestamptz')} as key`,
        [at, instant],
      );
      assert.deepEqual(back.rows[0], { same: true, key: instant }, instant);
    }
  } finally {
    await db.sql.query('reset timezone');
    await db.sql.query('reset datestyle');
  }
});

test('outside what a cursor carries (BC, year 10000, infinity) the text is null', async () => {
  const { rows } = await db.sql.query<{ key: string | null }>(
    `select ${cursorTimestampSql('x')} as key
       from unnest(array['0001-12-31T23:59:59.999999Z BC', '10000-01-01T00:00:00Z',
                         'infinity', '-infinity']::timestamptz[]) x`,
  );
  assert.deepEqual(
    rows.map((r) => r.key),
    [null, null, null, null],
  );
});
