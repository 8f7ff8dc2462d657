// Partition maintenance behind a long transaction (PostgreSQL only: it needs several connections).
// A step waits a short lock_timeout per try and tries again with pauses, so a publish never queues
// behind maintenance's pending lock for longer than one try: it completes while the maintenance is
// still retrying, and the maintenance completes once the blocker ends. An injected clock moves
// forward; the only waits are the polls for the maintenance's lock request.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Sql } from '@surety/db';
import { createTestDatabase, needsPostgres, type TestDatabase } from '@surety/db/testing';
import { parseAllowList, Webhooks } from '../src/index.js';
import { webhooksInternals } from '../src/testing.js';

const DAY = 86_400_000;
let db: TestDatabase;
let clock = Date.now();
let webhooks: Webhooks;

before(async () => {
  if (needsPostgres) return;
  db = await createTestDatabase();
  webhooks = new Webhooks({
    sql: db.sql,
    schema: db.schema,
    allowHttp: true,
    allowList: parseAllowList('127.0.0.1/32'),
    now: () => clock,
  });
  // The database's clock moves with the injected one (maintain decides by the database's).
  webhooksInternals(webhooks).dbNow = async () => clock;
  await webhooks.migrate();
});
after(() => db?.close());

/** A transaction on its own connection that holds what `hold` took until `release()`. */
async function blocker(hold: string) {
  const other: Sql = db.connect(1);
  let release!: () => void;
  const released = new Promise<void>((r) => {
    release = r;
  });
  let held!: () => void;
  const isHeld = new Promise<void>((r) => {
    held = r;
  });
  const done = other.transaction(async (tx) => {
    await tx.query(hold);
    held();
    await released;
  });
  await Promise.race([isHeld, done]);
  let ended: Promise<void> | undefined;
  return {
    end() {
      release();
      ended ??= done.then(() => other.close());
      return ended;
    },
  };
}

/** Polls until some session waits for a lock on one of this schema's tables (bounded). */
async function someoneWaits() {
  for (let i = 0; i < 2000; i++) {
    const { rows } = await db.sql.query(
      `select 1 from pg_locks l join pg_class c on c.oid = l.relation
         join pg_namespace n on n.oid = c.relnamespace
        where not l.granted and n.nspname = $1`,
      [db.schema],
    );
    if (rows.length > 0) return;
    await sleep(5);
  }
  assert.fail('the maintenance never waited for a lock');
}

/** The maintenance run, and whether it has settled yet. */
function tracked<T>(p: Promise<T>) {
  const t = { settled: false, result: p };
  p.then(
    () => {
      t.settled = true;
    },
    () => {
      t.settled = true;
    },
  );
  return t;
}

/**
 * A publish that gives up after waiting 5 s for a lock: far more than one try of the maintenance
 * (50 ms), half of the 10 s a step may keep trying.
 */
const publish = (tenant: string) =>
  db.sql.transaction((tx) => webhooks.publish(tx, { tenant, type: 'order.created', data: {} }), {
    first: 'set local lock_timeout = 5000',
  });

describe('partition maintenance behind a long transaction', { skip: needsPostgres }, () => {
  test('creating a window: a publish goes through while the maintenance retries, which then completes', async () => {
    await webhooks.maintain({ retentionDays: 365, ahead: 2 });
    clock += DAY; // one window to create; today's exists, so the publish lands in a window
    const reader = await blocker(`select count(*) from "${db.schema}".webhook_events`);
    let maintenance: ReturnType<typeof tracked<Awaited<ReturnType<Webhooks['maintain']>>>>;
    try {
      maintenance = tracked(webhooks.maintain({ retentionDays: 365, ahead: 2, lockTimeoutMs: 10_000 }));
      await someoneWaits();
      await publish('create');
      assert.equal(maintenance.settled, false, 'the publish waited for the maintenance to give up');
      // A read of every window (as a listing or the claim reads them) queues behind ATTACH's
      // request for the DEFAULT partition, one try long at most.
      await db.sql.transaction((tx) => tx.query(`select count(*) from "${db.schema}".webhook_events`), {
        first: 'set local lock_timeout = 5000',
      });
      assert.equal(maintenance.settled, false, 'the read waited for the maintenance to give up');
    } finally {
      await reader.end();
    }
    const report = await maintenance.result;
    assert.equal(report.createBlocked, false);
    assert.equal(report.created.length, 1, JSON.stringify(report));
    assert.ok(report.lockTimeouts > 0, 'it did wait for the reader');
  });

  test('creating a window takes no lock on the parent that a publish into another window waits for', async () => {
    await webhooks.maintain({ retentionDays: 365, ahead: 2 });
    clock += DAY;
    const reader = await blocker(`select count(*) from "${db.schema}".webhook_events`);
    try {
      // One try that waits as long as the publish could: the publish must not wait at all.
      const maintenance = tracked(
        webhooks.maintain({ retentionDays: 365, ahead: 2, lockTimeoutMs: 10_000, lockWaitMs: 10_000 }),
      );
      await someoneWaits();
      await publish('attach');
      assert.equal(maintenance.settled, false);
      await reader.end();
      assert.equal((await maintenance.result).created.length, 1);
    } finally {
      await reader.end();
    }
  });

  test('dropping a window: a publish goes through while the maintenance retries, which then completes', async () => {
    await webhooks.maintain({ retentionDays: 365, ahead: 2 });
    clock += 40 * DAY;
    await webhooks.maintain({ retentionDays: 365, ahead: 2 });
    const reader = await blocker(`select count(*) from "${db.schema}".webhook_attempts`);
    let maintenance: ReturnType<typeof tracked<Awaited<ReturnType<Webhooks['maintain']>>>>;
    try {
      maintenance = tracked(webhooks.maintain({ retentionDays: 30, ahead: 2, lockTimeoutMs: 10_000 }));
      await someoneWaits();
      await publish('drop');
      assert.equal(maintenance.settled, false, 'the publish waited for the maintenance to give up');
    } finally {
      await reader.end();
    }
    const report = await maintenance.result;
    assert.ok(report.dropped.length > 0, JSON.stringify(report));
    assert.ok(report.lockTimeouts > 0, 'it did wait for the reader');
    assert.deepEqual(
      report.held.filter((h) => h.reason === 'locked'),
      [],
    );
  });
});
