// Issue 30, N2: partition maintenance decides by the database's clock, never the caller's. A
// process whose clock runs 40 days ahead is refused (ClockSkewError, before anything changes);
// allowed that skew, it still drops and creates by the database's now(). A gap in the windows
// (left by an older version that trusted the caller's clock) is reported and filled, so rows stop
// going to DEFAULT, which retention never drops. Real clocks here: a fresh database, no fake time.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import { isClockSkewError, parseAllowList, Webhooks } from '../src/index.js';
import { dropWindow } from '../src/sql/partitions.js';
import { webhooksInternals } from '../src/testing.js';

const DAY = 86_400_000;
let db: TestDatabase;
let honest: Webhooks;

const engine = (now: () => number) =>
  new Webhooks({
    sql: db.sql,
    schema: db.schema,
    allowHttp: true,
    allowList: parseAllowList('127.0.0.1/32'),
    now,
  });

const windows = () =>
  db.sql
    .query<{ suffix: string; starts: number; ends: number }>(
      `select suffix, (extract(epoch from starts_at) * 1000)::float8 as starts,
              (extract(epoch from ends_at) * 1000)::float8 as ends
         from "${db.schema}".webhook_partitions order by ends_at`,
    )
    .then((r) => r.rows.map((w) => ({ suffix: w.suffix, starts: Number(w.starts), ends: Number(w.ends) })));

const dbNow = async () =>
  Number(
    (await db.sql.query<{ t: number }>(`select (extract(epoch from now()) * 1000)::float8 as t`)).rows[0]!.t,
  );

before(async () => {
  db = await createTestDatabase();
  honest = engine(Date.now);
  await honest.migrate();
  await honest.maintain({ retentionDays: 30, ahead: 7 });
});
after(() => db?.close());

test('a caller clock 40 days ahead is refused with ClockSkewError, and nothing changes', async () => {
  const before = await windows();
  const skewed = engine(() => Date.now() + 40 * DAY);
  const error = await skewed.maintain({ retentionDays: 30 }).then(
    () => assert.fail('maintain with a clock 40 days ahead must be refused'),
    (e: unknown) => e,
  );
  assert.ok(isClockSkewError(error), String(error));
  assert.equal(error.code, 'SURETY_CLOCK_SKEW');
  assert.ok(Math.abs(error.skewMs - 40 * DAY) < 60_000, String(error.skewMs));
  assert.match(error.message, /clock/);
  assert.deepEqual(await windows(), before, 'no window created or dropped');
});

test('allowed the skew, maintain still drops and creates by the database clock', async () => {
  const skewed = engine(() => Date.now() + 40 * DAY);
  const report = await skewed.maintain({ retentionDays: 30, ahead: 7, maxClockSkewMs: 60 * DAY });
  assert.ok(Math.abs(report.clockSkewMs - 40 * DAY) < 60_000);
  assert.deepEqual(report.dropped, [], 'nothing is 30 days old by the database clock');
  const now = await dbNow();
  const w = await windows();
  assert.ok(
    w.some((x) => x.starts <= now && x.ends > now),
    "today's window (by the database clock) is kept",
  );
  assert.ok(w.at(-1)!.ends < now + 9 * DAY, 'windows ahead of the database clock, not the caller');
  assert.deepEqual(report.gaps, []);
});

test('a gap in the windows is reported and filled; rows in it stop going to DEFAULT', async () => {
  const now = await dbNow();
  const w = await windows();
  // The window after today's, dropped as an older version would have (by a skewed clock).
  const victim = w.find((x) => x.starts > now)!;
  assert.ok(victim, JSON.stringify(w));
  const i = webhooksInternals(honest);
  const dropped = await i.sql.transaction((tx) =>
    dropWindow(tx, i.st.tables, { suffix: victim.suffix, lockTimeoutMs: 1000 }),
  );
  assert.equal(dropped.kind, 'dropped');
  const report = await honest.maintain({ retentionDays: 30, ahead: 7 });
  assert.deepEqual(report.gaps, [
    { from: new Date(victim.starts).toISOString(), to: new Date(victim.ends).toISOString() },
  ]);
  assert.ok(report.created.length >= 1, JSON.stringify(report));
  const after = await windows();
  for (let n = 1; n < after.length; n++) assert.equal(after[n]!.starts, after[n - 1]!.ends, 'contiguous');
  assert.deepEqual((await honest.maintain({ retentionDays: 30, ahead: 7 })).gaps, [], 'filled');
});
