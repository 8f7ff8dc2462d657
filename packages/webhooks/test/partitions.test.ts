// Time-partitioned history (issue 22): windows created ahead by Webhooks.maintain, retention by
// dropping whole windows, the rule that a pending delivery is never lost, the DEFAULT partition
// that catches rows no window covers, chosen event ids unique across partitions, and the
// migration from the unpartitioned tables on a database holding data. An injected clock moves
// forward; nothing sleeps.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { migrate, type Sql } from '@surety/db';
import { createTestDatabase, needsPostgres, type TestDatabase } from '@surety/db/testing';
import { idTimePrefix, newId } from '../src/ids.js';
import { DeliveryWorker, migrations, parseAllowList, Webhooks } from '../src/index.js';
import { eventTime } from '../src/sql/values.js';
import { claimOnce, pickParams, startReceiver, webhooksInternals } from '../src/testing.js';

const DAY = 86_400_000;
let db: TestDatabase;
let clock = Date.now();
let webhooks: Webhooks;
let tenant: string;
let tenantN = 0;

/** An engine whose clock and database clock both read `clock` (maintain decides by the latter). */
const engine = (sql: Sql, schema: string) => {
  const w = new Webhooks({
    sql,
    schema,
    allowHttp: true,
    allowList: parseAllowList('127.0.0.1/32'),
    now: () => clock,
  });
  webhooksInternals(w).dbNow = async () => clock;
  return w;
};

before(async () => {
  db = await createTestDatabase();
  webhooks = engine(db.sql, db.schema);
  await webhooks.migrate();
});
after(() => db.close());

const worker = () =>
  new DeliveryWorker({
    webhooks,
    listen: false,
    random: () => 0,
    timeoutMs: 2000,
    guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
  });

/** The partitions of a history table, with their bounds, in bound order. */
async function partitions(table: string, sql = db.sql, schema = db.schema) {
  const { rows } = await sql.query<{ name: string; bound: string }>(
    `select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
       from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = $1::regclass order by c.relname`,
    [`"${schema}".${table}`],
  );
  return rows;
}

/** The partition a row lives in. */
async function partitionOf(table: string, where: string, params: unknown[]) {
  const { rows } = await db.sql.query<{ p: string }>(
    `select tableoid::regclass::text as p from "${db.schema}".${table} where ${where}`,
    params,
  );
  return rows.map((r) => r.p.replace(/^.*\./, ''));
}

const windows = () =>
  db.sql
    .query<{ suffix: string; starts_at: string; ends_at: string }>(
      `select suffix, starts_at::text, ends_at::text from "${db.schema}".webhook_partitions order by ends_at`,
    )
    .then((r) => r.rows);

const publish = (input: { id?: string; type?: string } = {}) =>
  db.sql.transaction((tx) =>
    webhooks.publish(tx, {
      tenant,
      type: input.type ?? 'order.created',
      data: {},
      ...(input.id ? { id: input.id } : {}),
    }),
  );

describe('partitions and retention', () => {
  beforeEach(() => {
    tenant = `t${++tenantN}`;
  });

  test('windows are created `ahead` past the clock, contiguous from p0, and again as the clock moves', async () => {
    const first = await webhooks.maintain({ retentionDays: 30, ahead: 3 });
    let w = await windows();
    assert.equal(w[0]!.suffix, 'p0');
    assert.equal(w[0]!.starts_at, '-infinity');
    for (let i = 1; i < w.length; i++) assert.equal(w[i]!.starts_at, w[i - 1]!.ends_at, 'contiguous');
    assert.ok(Date.parse(w.at(-1)!.ends_at) >= clock + 3 * DAY);
    assert.deepEqual(
      first.created,
      w.slice(1).map((x) => x.suffix),
    );
    assert.equal((await webhooks.maintain({ retentionDays: 30, ahead: 3 })).created.length, 0, 'idempotent');
    const names = (await partitions('webhook_events')).map((p) => p.name);
    for (const x of w) assert.ok(names.includes(`webhook_events_${x.suffix}`), x.suffix);
    assert.ok(names.includes('webhook_events_default'));

    // A day later, one more window each time.
    for (let day = 0; day < 5; day++) {
      clock += DAY;
      assert.equal((await webhooks.maintain({ retentionDays: 30, ahead: 3 })).created.length, 1);
    }
    // After a long stop, one window covers the gap up to today, then daily ones follow.
    clock += 20 * DAY;
    const later = await webhooks.maintain({ retentionDays: 30, ahead: 3 });
    w = await windows();
    assert.ok(later.created.length >= 3 && later.created.length <= 5, later.created.join());
    assert.ok(Date.parse(w.at(-1)!.ends_at) >= clock + 3 * DAY);
    for (let i = 1; i < w.length; i++) assert.equal(w[i]!.starts_at, w[i - 1]!.ends_at, 'contiguous');
    // An event lands in the window of its creation time.
    const ev = await publish();
    const day = new Date(Math.floor(clock / DAY) * DAY).toISOString().slice(0, 10).replaceAll('-', '');
    assert.deepEqual(await partitionOf('webhook_events', 'tenant = $1 and id = $2', [tenant, ev.id]), [
      `webhook_events_p${day}`,
    ]);
  });

  test('an insert past every window goes to the DEFAULT partition; creating its window moves it there', async () => {
    clock += 100 * DAY;
    await webhooks.createEndpoint(db.sql, { tenant, url: 'http://127.0.0.1:9/x', eventTypes: ['*'] });
    const ev = await publish();
    const where: [string, unknown[]] = ['tenant = $1 and event_id = $2', [tenant, ev.id]];
    assert.deepEqual(await partitionOf('webhook_events', 'tenant = $1 and id = $2', [tenant, ev.id]), [
      'webhook_events_default',
    ]);
    assert.deepEqual(await partitionOf('webhook_deliveries', ...where), ['webhook_deliveries_default']);
    const report = await webhooks.maintain({ retentionDays: 365, ahead: 2 });
    assert.ok(report.created.length > 0);
    const [p] = await partitionOf('webhook_events', 'tenant = $1 and id = $2', [tenant, ev.id]);
    assert.match(p!, /^webhook_events_p\d{8}$/);
    assert.deepEqual(await partitionOf('webhook_deliveries', ...where), [p!.replace('events', 'deliveries')]);
    for (const table of ['webhook_events', 'webhook_deliveries']) {
      const left = await db.sql.query(`select 1 from "${db.schema}".${table}_default`);
      assert.equal(left.rows.length, 0, table);
    }
    await db.sql.query(`update "${db.schema}".webhook_deliveries set status = 'failed' where tenant = $1`, [
      tenant,
    ]);
    assert.equal((await webhooks.getEvent(db.sql, { tenant, id: ev.id }))?.id, ev.id);
  });

  test('retention drops whole windows; a window holding an event with a pending delivery waits until it is sent', async () => {
    let answer = 500;
    const rx = await startReceiver((_r, _n, res) => void res.writeHead(answer).end());
    try {
      await webhooks.maintain({ retentionDays: 365, ahead: 2 });
      await webhooks.createEndpoint(db.sql, { tenant, url: rx.url, eventTypes: ['*'] });
      // The receiver is down: the delivery stays pending, retried on its schedule.
      const ev = await publish();
      assert.equal(await worker().drain(), 1);
      const [evWindow] = await partitionOf('webhook_events', 'tenant = $1 and id = $2', [tenant, ev.id]);
      const status = async () =>
        (
          await db.sql.query<{ status: string }>(
            `select status from "${db.schema}".webhook_deliveries where tenant = $1 and event_id = $2`,
            [tenant, ev.id],
          )
        ).rows.map((r) => r.status);
      assert.deepEqual(await status(), ['pending']);

      clock += 40 * DAY;
      const report = await webhooks.maintain({ retentionDays: 30, ahead: 2 });
      const suffix = evWindow!.replace('webhook_events_', '');
      const held = report.held.find((h) => h.window === suffix);
      assert.deepEqual(held && { reason: held.reason, pending: held.pending }, {
        reason: 'pending',
        pending: 1,
      });
      assert.ok(!report.dropped.includes(suffix));
      assert.ok((await webhooks.getEvent(db.sql, { tenant, id: ev.id })) !== undefined, 'not lost');

      // Once it is delivered, the next run drops the window.
      answer = 204;
      assert.equal(await worker().drain(), 1);
      assert.deepEqual(await status(), ['delivered']);
      const again = await webhooks.maintain({ retentionDays: 30, ahead: 2 });
      assert.ok(again.dropped.includes(suffix), JSON.stringify(again));
      assert.equal(await webhooks.getEvent(db.sql, { tenant, id: ev.id }), undefined);
      const names = (await partitions('webhook_events')).map((p) => p.name);
      assert.ok(!names.includes(evWindow!), 'the partition is gone (DROP, not DELETE)');
      assert.ok(!(await windows()).some((x) => x.suffix === suffix));
      // Every window left ends after the cutoff, or is held.
      for (const x of await windows()) {
        assert.ok(
          Date.parse(x.ends_at) > clock - 30 * DAY || again.held.some((h) => h.window === x.suffix),
          x.suffix,
        );
      }
    } finally {
      await rx.close();
    }
  });

  test("a replayed old event: its window waits for the replay's pending delivery in today's window", async () => {
    let answer = 204;
    const rx = await startReceiver((_r, _n, res) => void res.writeHead(answer).end());
    try {
      await webhooks.maintain({ retentionDays: 365, ahead: 2 });
      const { endpoint } = await webhooks.createEndpoint(db.sql, { tenant, url: rx.url, eventTypes: ['*'] });
      const ev = await publish();
      assert.equal(await worker().drain(), 1);
      const [evWindow] = await partitionOf('webhook_events', 'tenant = $1 and id = $2', [tenant, ev.id]);
      clock += 40 * DAY;
      await webhooks.maintain({ retentionDays: 365, ahead: 2 });
      answer = 500;
      assert.equal(
        await webhooks.replayEvent(db.sql, { tenant, eventId: ev.id, endpointId: endpoint.id }),
        1,
      );
      assert.equal(await worker().drain(), 1);
      const replayed = await partitionOf(
        'webhook_deliveries',
        "tenant = $1 and event_id = $2 and status = 'pending'",
        [tenant, ev.id],
      );
      assert.equal(replayed.length, 1);
      assert.notEqual(replayed[0], evWindow!.replace('events', 'deliveries'), 'queued in a later window');
      const report = await webhooks.maintain({ retentionDays: 30, ahead: 2 });
      const suffix = evWindow!.replace('webhook_events_', '');
      assert.deepEqual(
        report.held.filter((h) => h.window === suffix).map((h) => [h.reason, h.pending]),
        [['pending', 1]],
      );
      assert.ok((await webhooks.getEvent(db.sql, { tenant, id: ev.id })) !== undefined, 'the event stays');
      answer = 204;
      clock += DAY;
      assert.equal(await worker().drain(), 1);
      assert.ok((await webhooks.maintain({ retentionDays: 30, ahead: 2 })).dropped.includes(suffix));
    } finally {
      await rx.close();
    }
  });

  test('a window whose locks stay busy is reported `locked` and dropped at the next run', {
    skip: needsPostgres,
  }, async () => {
    await webhooks.maintain({ retentionDays: 365, ahead: 2 });
    clock += 40 * DAY;
    await webhooks.maintain({ retentionDays: 365, ahead: 2 });
    const due = (await windows()).filter((w) => Date.parse(w.ends_at) <= clock - 30 * DAY);
    assert.ok(due.length > 0);
    const other = db.connect(1);
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => {
      locked = r;
    });
    const holder = other.transaction(async (tx) => {
      await tx.query(`lock table "${db.schema}".webhook_attempts in access share mode`);
      locked();
      await released;
    });
    try {
      await isLocked;
      const report = await webhooks.maintain({ retentionDays: 30, ahead: 2, lockTimeoutMs: 100 });
      assert.deepEqual(report.dropped, []);
      assert.ok(
        report.held.length >= due.length && report.held.every((h) => h.reason === 'locked'),
        JSON.stringify(report),
      );
    } finally {
      release();
      await holder;
      await other.close();
    }
    const again = await webhooks.maintain({ retentionDays: 30, ahead: 2 });
    for (const w of due)
      assert.ok(
        again.dropped.includes(w.suffix) ||
          again.held.some((h) => h.window === w.suffix && h.reason === 'pending'),
      );
  });

  test('two processes maintaining at once create each window once', { skip: needsPostgres }, async () => {
    const other = db.connect(2);
    try {
      const second = engine(other, db.schema);
      clock += 30 * DAY;
      const [a, b] = await Promise.all([
        webhooks.maintain({ retentionDays: 365, ahead: 5 }),
        second.maintain({ retentionDays: 365, ahead: 5 }),
      ]);
      const created = [...a.created, ...b.created];
      assert.equal(new Set(created).size, created.length, 'no window twice');
      const w = await windows();
      for (let i = 1; i < w.length; i++) assert.equal(w[i]!.starts_at, w[i - 1]!.ends_at, 'contiguous');
      assert.ok(Date.parse(w.at(-1)!.ends_at) >= clock + 5 * DAY);
    } finally {
      await other.close();
    }
  });

  test('an event id the publisher chose stays unique across windows, and is forgotten with its window', async () => {
    await webhooks.maintain({ retentionDays: 365, ahead: 3 });
    await publish({ id: 'order-42-created' });
    clock += 2 * DAY;
    await webhooks.maintain({ retentionDays: 365, ahead: 3 });
    await assert.rejects(publish({ id: 'order-42-created' }), /webhook_event_ids_pkey|duplicate key/);
    const generated = await publish();
    const keys = await db.sql.query<{ id: string }>(
      `select id from "${db.schema}".webhook_event_ids where tenant = $1`,
      [tenant],
    );
    assert.deepEqual(
      keys.rows.map((r) => r.id),
      ['order-42-created'],
      `generated ids (${generated.id}) are not kept`,
    );
    clock += 400 * DAY;
    await webhooks.maintain({ retentionDays: 30, ahead: 1 });
    const after = await db.sql.query(`select 1 from "${db.schema}".webhook_event_ids where tenant = $1`, [
      tenant,
    ]);
    assert.equal(after.rows.length, 0);
    await publish({ id: 'order-42-created' });
  });

  test("webhook_time_id (the id bounds) is newId's time prefix: ids made at or after a time sort at or above it", async () => {
    for (const at of [
      0,
      1,
      61,
      62,
      Date.parse('2026-12-01T00:00:00Z'),
      Date.parse('2081-08-05T00:00:00Z'),
      clock,
    ]) {
      const { rows } = await db.sql.query<{ b: string }>(
        `select "${db.schema}".webhook_time_id('dlv', $1) as b`,
        [new Date(at).toISOString()],
      );
      const b = rows[0]!.b;
      assert.equal(b, newId('dlv', at).slice(0, 12), new Date(at).toISOString());
      assert.ok(Buffer.compare(Buffer.from(newId('dlv', at)), Buffer.from(b)) > 0);
      if (at > 0) assert.ok(Buffer.compare(Buffer.from(newId('dlv', at - 1)), Buffer.from(b)) < 0);
    }
  });

  test("a publish's delivery ids: newId's form with the event's time, distinct across a fan-out, in the event's window", async () => {
    await webhooks.maintain({ retentionDays: 365, ahead: 2 });
    for (let i = 0; i < 60; i++)
      await webhooks.createEndpoint(db.sql, { tenant, url: `http://127.0.0.1:9/${i}`, eventTypes: ['*'] });
    const { id } = await publish();
    const { rows } = await db.sql.query<{ id: string; created_at: Date; p: string }>(
      `select d.id, e.created_at, d.tableoid::regclass::text as p
         from "${db.schema}".webhook_deliveries d
         join "${db.schema}".webhook_events e on e.tenant = d.tenant and e.id = d.event_id
        where d.tenant = $1 and d.event_id = $2`,
      [tenant, id],
    );
    assert.equal(rows.length, 60);
    assert.equal(new Set(rows.map((r) => r.id)).size, 60);
    const prefix = idTimePrefix('dlv', new Date(rows[0]!.created_at).getTime());
    for (const r of rows) {
      assert.match(r.id, /^dlv_[0-9A-Za-z]{22}$/);
      assert.ok(r.id.startsWith(prefix), `${r.id} starts with ${prefix}`);
    }
    const [w] = await partitionOf('webhook_events', 'tenant = $1 and id = $2', [tenant, id]);
    assert.deepEqual(
      new Set(rows.map((r) => r.p.replace(/^.*\./, '').replace('events', 'deliveries'))),
      new Set([w!.replace('events', 'deliveries')]),
    );
  });

  test('maintain refuses options out of range', async () => {
    await assert.rejects(webhooks.maintain({ retentionDays: 0 }), { code: 'SURETY_INVALID_INPUT' });
    await assert.rejects(webhooks.maintain({ retentionDays: 30, partitionDays: 1.5 }), {
      code: 'SURETY_INVALID_INPUT',
    });
    await assert.rejects(webhooks.maintain({ retentionDays: 30, lockWaitMs: 0 }), {
      code: 'SURETY_INVALID_INPUT',
      message: /lockWaitMs/,
    });
  });
});

/** Every plan node, depth first. */
function nodes(plan: Record<string, unknown>): Record<string, unknown>[] {
  const kids = (plan['Plans'] as Record<string, unknown>[] | undefined) ?? [];
  return [plan, ...kids.flatMap(nodes)];
}

describe('plans across partitions', () => {
  test("a tenant's event list reads each window's index in order (Merge Append, no sort, no sequential scan)", async () => {
    tenant = `plan${++tenantN}`;
    await webhooks.maintain({ retentionDays: 365, ahead: 3 });
    const s = `"${db.schema}"`;
    // 3 windows of 3,000 events, 10 tenants, then statistics as autovacuum would gather them.
    await db.sql.query(
      `insert into ${s}.webhook_events (tenant, id, type, api_version, resource, sequence, data, created_at)
       select case when g % 10 = 0 then $1 else 'other' || (g % 10) end, 'evt_plan_' || g, 'order.created',
              '2026-11-01', null, g, '{}', $2::timestamptz + (g % 3) * interval '1 day' + g * interval '1 ms'
         from generate_series(1, 9000) g`,
      [tenant, new Date(Math.floor(clock / DAY) * DAY + 2 * DAY).toISOString()],
    );
    await db.sql.query(`analyze ${s}.webhook_events`);
    const { rows } = await db.sql.query<{ 'QUERY PLAN': unknown }>(
      `explain (format json) select id from ${s}.webhook_events where tenant = $1
        order by created_at desc, id desc limit 21`,
      [tenant],
    );
    const plan = (
      typeof rows[0]!['QUERY PLAN'] === 'string'
        ? JSON.parse(rows[0]!['QUERY PLAN'] as string)
        : rows[0]!['QUERY PLAN']
    ) as { Plan: Record<string, unknown> }[];
    const all = nodes(plan[0]!.Plan);
    const types = all.map((n) => n['Node Type']);
    assert.ok(types.includes('Merge Append'), JSON.stringify(types));
    assert.ok(!types.includes('Sort') && !types.includes('Seq Scan'), JSON.stringify(types));
    const scanned = all.filter((n) => n['Node Type'] === 'Index Scan').map((n) => n['Relation Name']);
    const windowsWithRows = (await partitions('webhook_events')).length;
    assert.ok(scanned.length >= 3 && scanned.length <= windowsWithRows, JSON.stringify(scanned));
  });

  test("an endpoint's delivery list reads each window's index in order, too", async () => {
    tenant = `dplan${++tenantN}`;
    await webhooks.maintain({ retentionDays: 365, ahead: 3 });
    const s = `"${db.schema}"`;
    const start = Math.floor(clock / DAY) * DAY + 2 * DAY;
    await db.sql.query(
      `insert into ${s}.webhook_deliveries (id, tenant, endpoint_id, event_id, status, next_attempt_at, created_at)
       select ${s}.webhook_new_id('dlv', t), case when g % 10 = 0 then $1 else 'other' end, 'we_' || (g % 7),
              'evt_' || g, 'delivered', t, t
         from generate_series(1, 9000) g,
              lateral (select $2::timestamptz + (g % 3) * interval '1 day' + g * interval '1 ms' as t) x`,
      [tenant, new Date(start).toISOString()],
    );
    await db.sql.query(`analyze ${s}.webhook_deliveries`);
    const { rows } = await db.sql.query<{ 'QUERY PLAN': unknown }>(
      `explain (format json) select id from ${s}.webhook_deliveries where tenant = $1 and endpoint_id = $2
        order by created_at desc, id desc limit 21`,
      [tenant, 'we_3'],
    );
    const plan = (
      typeof rows[0]!['QUERY PLAN'] === 'string'
        ? JSON.parse(rows[0]!['QUERY PLAN'] as string)
        : rows[0]!['QUERY PLAN']
    ) as { Plan: Record<string, unknown> }[];
    const all = nodes(plan[0]!.Plan);
    const types = all.map((n) => n['Node Type']);
    assert.ok(types.includes('Merge Append'), JSON.stringify(types));
    assert.ok(!types.includes('Sort') && !types.includes('Seq Scan'), JSON.stringify(types));
    const windowsRead = all.filter((n) => /^Index (Only )?Scan$/.test(String(n['Node Type']))).length;
    assert.ok(windowsRead >= 3, JSON.stringify(types));
  });

  test("a delivery's event is read in one events partition (run-time pruning on event_created_at)", async () => {
    tenant = `prune${++tenantN}`;
    await webhooks.maintain({ retentionDays: 365, ahead: 3 });
    await webhooks.createEndpoint(db.sql, { tenant, url: 'http://127.0.0.1:9/x', eventTypes: ['*'] });
    await publish();
    const { rows } = await db.sql.query<{ 'QUERY PLAN': unknown }>(
      `explain (analyze, format json)
       select ev.type from "${db.schema}".webhook_deliveries d
         left join lateral (select * from "${db.schema}".webhook_events e
                             where e.tenant = d.tenant and e.id = d.event_id and ${eventTime('e', 'd')}
                             limit 1) ev on true
        where d.tenant = $1`,
      [tenant],
    );
    const plan = (
      typeof rows[0]!['QUERY PLAN'] === 'string'
        ? JSON.parse(rows[0]!['QUERY PLAN'] as string)
        : rows[0]!['QUERY PLAN']
    ) as { Plan: Record<string, unknown> }[];
    const read = nodes(plan[0]!.Plan).filter(
      (n) => String(n['Relation Name'] ?? '').startsWith('webhook_events') && Number(n['Actual Loops']) > 0,
    );
    assert.equal(read.length, 1, JSON.stringify(read.map((n) => n['Relation Name'])));
  });
});

describe('the claim across partitions', () => {
  /** The JSON plan of `explain (format json) …`, as PostgreSQL and PGlite answer it. */
  const planOf = (rows: { 'QUERY PLAN': unknown }[]) =>
    (typeof rows[0]!['QUERY PLAN'] === 'string'
      ? JSON.parse(rows[0]!['QUERY PLAN'] as string)
      : rows[0]!['QUERY PLAN']) as { Plan: Record<string, unknown> }[];
  const pickTypes = 'timestamptz, int, text, int, int, int, text[], text[], int[]';
  const noCaps = [1000, 1000, 1000, [], [], []] as const;

  test('the take is planned for its ids: only the windows that hold them are in its plan, of the deliveries and of the events', async () => {
    tenant = `take${++tenantN}`;
    await webhooks.maintain({ retentionDays: 365, ahead: 5 });
    await webhooks.createEndpoint(db.sql, { tenant, url: 'http://127.0.0.1:9/x', eventTypes: ['*'] });
    for (let i = 0; i < 3; i++) await publish();
    const st = webhooksInternals(webhooks).st;
    const at = new Date(clock + 1000).toISOString();
    const lease = new Date(clock + 61_000).toISOString();
    const plan = await db.sql.transaction(
      async (tx) => {
        const pick = (
          await tx.query<{ ids: string; events_from: string; events_to: string }>(
            st.claim,
            pickParams([at, 3, lease, 'take-plan', ...noCaps]),
          )
        ).rows[0]!;
        assert.match(pick.ids, /^\{dlv_\w+,dlv_\w+,dlv_\w+\}$/, "three ids, as the array's text");
        // no SET here: the pick itself switched the transaction to plans for their values
        const q = (v: string) => `'${v.replaceAll("'", "''")}'`;
        await tx.query(
          `prepare take_plan(text[], timestamptz, timestamptz, text, timestamptz, timestamptz, text[], text[], int[]) as ${st.claimTake.text}`,
        );
        const { rows } = await tx.query<{ 'QUERY PLAN': unknown }>(
          `explain (format json) execute take_plan(${q(pick.ids)}, ${q(at)}, ${q(lease)}, 'take-plan',
             ${q(pick.events_from)}, ${q(pick.events_to)}, '{}', '{}', '{}')`,
        );
        await tx.query('deallocate take_plan');
        return planOf(rows);
      },
      { first: st.claimSettings },
    );
    const relations = nodes(plan[0]!.Plan)
      .map((n) => String(n['Relation Name'] ?? ''))
      // partitions only: the parent is the UPDATE's target name
      .filter((r) => /^webhook_(deliveries|events)_/.test(r));
    const holding = new Set([
      ...(await partitionOf('webhook_deliveries', 'tenant = $1', [tenant])),
      ...(await partitionOf('webhook_events', 'tenant = $1', [tenant])),
    ]);
    assert.ok(relations.length > 0, 'the take reads the deliveries and their events');
    // and never through another index than the primary key (a pending index scanned whole per id
    // was the trap; a sequential scan of a window this small is the planner's right choice)
    const indexes = nodes(plan[0]!.Plan)
      .filter((n) => /^webhook_deliveries_/.test(String(n['Relation Name'] ?? '')) && n['Index Name'])
      .map((n) => String(n['Index Name']));
    assert.deepEqual(
      indexes.filter((i) => !i.endsWith('_pkey')),
      [],
    );
    assert.deepEqual(
      relations.filter((r) => !holding.has(r)),
      [],
      `only ${[...holding].join(', ')} (of ${(await partitions('webhook_deliveries')).length} windows)`,
    );
  });

  // Rows written by SQL (the migration's legacy rows, an operator's backfill, bench/scale's bulk load)
  // carry microseconds; publish's carry milliseconds. The take's window for the events came back from
  // the pick as a JS Date (milliseconds), so its upper bound fell short of an event written .951823 with
  // its delivery: the take found no event, and the delivery failed for good as "event_deleted".
  test('an event and delivery written with microsecond timestamps: the take finds the event and delivers it', async () => {
    tenant = `usec${++tenantN}`;
    const rx = await startReceiver();
    try {
      await webhooks.maintain({ retentionDays: 365, ahead: 2 });
      const { endpoint } = await webhooks.createEndpoint(db.sql, { tenant, url: rx.url, eventTypes: ['*'] });
      // later than every other pending row here, so that it is the top of the take's window
      const at = `${new Date(clock + 3_600_000).toISOString().slice(0, 23)}823Z`; // …:21.951823
      const due = new Date(clock - 60_000).toISOString();
      await db.sql.query(
        `insert into "${db.schema}".webhook_events (tenant, id, type, api_version, sequence, data, created_at)
         values ($1, 'evt_usec', 'order.created', '2026-01-01', 1, '{}', $2::timestamptz)`,
        [tenant, at],
      );
      await db.sql.query(
        `insert into "${db.schema}".webhook_deliveries (tenant, endpoint_id, event_id, status, next_attempt_at, created_at)
         values ($1, $2, 'evt_usec', 'pending', $4::timestamptz, $3::timestamptz)`,
        [tenant, endpoint.id, at, due],
      );
      await worker().drain(); // (other tests' deliveries are pending too)
      const { rows } = await db.sql.query<{ status: string; last_error: string | null }>(
        `select status, last_error from "${db.schema}".webhook_deliveries where tenant = $1`,
        [tenant],
      );
      assert.deepEqual(rows, [{ status: 'delivered', last_error: null }]);
      assert.equal(rx.received.length, 1);
    } finally {
      await rx.close();
    }
  });

  test('the pick on a generic plan made while the tables were empty still walks the due index once they fill, with no ANALYZE', async () => {
    // Its own schema: empty windows, never analyzed (as on PGlite, which has no autovacuum).
    const schema = `${db.schema}_pick`;
    const own = engine(db.sql, schema);
    await own.migrate();
    try {
      await own.maintain({ retentionDays: 365, ahead: 2 });
      const { endpoint } = await own.createEndpoint(db.sql, {
        tenant,
        url: 'http://127.0.0.1:9/x',
        eventTypes: ['*'],
      });
      const st = webhooksInternals(own).st;
      const at = new Date(clock + 1000).toISOString();
      const explain = async (tx: { query: Sql['query'] }) =>
        planOf(
          (
            await tx.query<{ 'QUERY PLAN': unknown }>(
              `explain (format json) execute pick_plan('${at}', 50, 'w', 100, 1000, 1000, '{}', '{}', '{}')`,
            )
          ).rows,
        );
      const result = await db.sql.transaction(
        async (tx) => {
          await tx.query(`prepare pick_plan(${pickTypes}) as ${st.claim.text}`);
          const empty = await explain(tx);
          // 3,000 pending deliveries in today's window, written after the plan was made
          await tx.query(
            `insert into "${schema}".webhook_deliveries (id, tenant, endpoint_id, event_id, status, ordered, next_attempt_at, created_at)
             select "${schema}".webhook_new_id('dlv', $3::timestamptz), $1, $2, 'evt_fill_' || g, 'pending', false,
                    $3::timestamptz - g * interval '1 ms', $3
               from generate_series(1, 3000) g`,
            [tenant, endpoint.id, new Date(clock).toISOString()],
          );
          const full = await explain(tx);
          const { rows } = await claimOnce(tx, own, [
            at,
            50,
            new Date(clock + 61_000).toISOString(),
            'w',
            ...noCaps,
          ]);
          await tx.query('deallocate pick_plan');
          return { empty, full, claimed: rows.length };
        },
        { first: st.claimSettings },
      );
      for (const plan of [result.empty, result.full]) {
        const all = nodes(plan[0]!.Plan);
        const scans = all
          .filter((n) => String(n['Relation Name'] ?? '').startsWith('webhook_deliveries'))
          .map((n) => `${n['Node Type']} ${n['Index Name'] ?? ''}`);
        assert.ok(
          scans.some((x) => /^Index Scan .*next_attempt_at_idx$/.test(x)),
          JSON.stringify(scans),
        );
        assert.ok(!scans.some((x) => /Seq Scan|Bitmap/.test(x)), JSON.stringify(scans));
        // the window is read once, by the ranks: the events' time range comes from the picks
        // themselves (joined back to the window, this plan looped window × picks, twice a claim)
        const walks = all.filter((n) => n['Node Type'] === 'CTE Scan' && n['CTE Name'] === 'walk');
        assert.equal(walks.length, 1, JSON.stringify(all.map((n) => n['Node Type'])));
      }
      assert.equal(result.claimed, 50);
    } finally {
      await db.sql.query(`drop schema "${schema}" cascade`);
    }
  });
});

describe('migration from the unpartitioned tables', () => {
  test('a database holding data in the old layout: rows kept in p0, indexes reused, service works', async () => {
    const old = await createTestDatabase();
    try {
      const upTo = (n: number) => ({
        set: migrations.set,
        migrations: migrations.migrations.filter((m) => m.id < n),
      });
      // Counter ids first (before 000012), then time-ordered ones (000012 and 000013 applied).
      await migrate(old.sql, { schema: old.schema, sets: [upTo(12)] });
      const s = `"${old.schema}"`;
      const rx = await startReceiver();
      try {
        const legacy = engine(old.sql, old.schema);
        clock = Date.now();
        tenant = 'legacy';
        // Written as the layout of that time holds it: today's createEndpoint writes later columns (headers).
        const endpoint = { id: 'we_legacy' };
        await old.sql.query(
          `insert into ${s}.webhook_endpoints (tenant, id, url, event_types, secrets, created_at, updated_at)
           values ($1, $2, $3, '{*}', $4::jsonb, now(), now())`,
          [
            tenant,
            endpoint.id,
            rx.url,
            JSON.stringify([{ secret: `whsec_${randomBytes(32).toString('base64')}`, expiresAt: null }]),
          ],
        );
        const events = (from: number, to: number) =>
          old.sql.query(
            `insert into ${s}.webhook_events (tenant, id, type, api_version, resource, sequence, data, created_at)
             select 'legacy', 'evt_old_' || g, 'order.created', '2026-11-01', null, g, '{}', now() - g * interval '1 hour'
               from generate_series(${from}, ${to}) g`,
          );
        const deliveries = (from: number, to: number) =>
          old.sql.query(
            `insert into ${s}.webhook_deliveries (tenant, endpoint_id, event_id, status, next_attempt_at, created_at, completed_at)
             select 'legacy', $1, 'evt_old_' || g, case when g % 100 <= 3 then 'pending' else 'delivered' end,
                    now() - interval '1 minute', now() - g * interval '1 hour', case when g % 100 > 3 then now() end
               from generate_series(${from}, ${to}) g`,
            [endpoint.id],
          );
        await events(1, 200);
        await deliveries(1, 200);
        await old.sql.query(
          `insert into ${s}.webhook_attempts (delivery_id, tenant, endpoint_id, attempt, started_at, duration_ms, status)
           select id, tenant, endpoint_id, 1, created_at, 5, 200 from ${s}.webhook_deliveries where status = 'delivered'`,
        );
        await migrate(old.sql, { schema: old.schema, sets: [upTo(14)] });
        await events(201, 205);
        await deliveries(201, 205);
        const indexes = (table: string) =>
          old.sql
            .query<{ n: number }>(
              `select count(*)::int as n from pg_indexes where schemaname = $1 and tablename = $2`,
              [old.schema, table],
            )
            .then((r) => r.rows[0]!.n);
        const before = {
          events: await indexes('webhook_events'),
          deliveries: await indexes('webhook_deliveries'),
          attempts: await indexes('webhook_attempts'),
        };
        await legacy.migrate();
        assert.deepEqual(
          (await partitions('webhook_events', old.sql, old.schema)).map((x) => x.name),
          ['webhook_events_default', 'webhook_events_p0'],
        );
        assert.deepEqual(
          (await partitions('webhook_deliveries', old.sql, old.schema)).map((x) => x.name),
          ['webhook_deliveries_default', 'webhook_deliveries_p0', 'webhook_deliveries_p0_legacy'],
        );
        const counts = await old.sql.query(
          `select (select count(*) from ${s}.webhook_events)::int as events,
                  (select count(*) from ${s}.webhook_events_p0)::int as events_p0,
                  (select count(*) from ${s}.webhook_event_ids)::int as keys,
                  (select count(*) from ${s}.webhook_deliveries_p0_legacy)::int as deliveries_legacy,
                  (select count(*) from ${s}.webhook_deliveries_p0)::int as deliveries_p0,
                  (select count(*) from ${s}.webhook_attempts_p0_legacy)::int as attempts_legacy`,
        );
        assert.deepEqual(counts.rows[0], {
          events: 205,
          events_p0: 205,
          keys: 205,
          deliveries_legacy: 200,
          deliveries_p0: 5,
          attempts_legacy: 192,
        });
        assert.equal(
          await indexes('webhook_events_p0'),
          before.events,
          'no index built again on the old events',
        );
        // Pull delivery's two partial indexes (000021) are new: built on every partition, the old one too.
        assert.equal(await indexes('webhook_deliveries_p0_legacy'), before.deliveries + 2, 'nor deliveries');
        assert.equal(await indexes('webhook_attempts_p0_legacy'), before.attempts, 'nor attempts');
        const ff = await old.sql.query<{ o: string[] | null }>(
          `select reloptions as o from pg_class where oid = $1::regclass`,
          [`${s}.webhook_deliveries_p0`],
        );
        assert.deepEqual(ff.rows[0]!.o, ['fillfactor=50']); // 000022
        // The old ids stay unique (p0's own key, and the event-id table).
        await assert.rejects(
          old.sql.transaction((tx) =>
            legacy.publish(tx, { tenant, id: 'evt_old_7', type: 'order.created', data: {} }),
          ),
        );
        const page = await legacy.listEvents(old.sql, { tenant, limit: 5 });
        assert.equal(page.data[0]!.id, 'evt_old_1');
        // A counter-era delivery keeps its id and its attempts.
        const dl = await legacy.listDeliveries(old.sql, { tenant, limit: 300 });
        assert.equal(dl.data.length, 205);
        const oldDelivery = dl.data.find((d) => d.id === 'dlv_150')!;
        assert.equal(oldDelivery.eventType, 'order.created');
        assert.equal((await legacy.listAttempts(old.sql, { tenant, deliveryId: 'dlv_150' }))?.length, 1);
        // The pending deliveries of both eras are sent, with their events.
        const w = new DeliveryWorker({
          webhooks: legacy,
          listen: false,
          random: () => 0,
          timeoutMs: 2000,
          guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
        });
        const pendingIds = Array.from({ length: 205 }, (_, i) => i + 1)
          .filter((g) => g % 100 <= 3)
          .map((g) => `evt_old_${g}`);
        assert.equal(await w.drain(), pendingIds.length);
        assert.deepEqual(rx.received.map((r) => JSON.parse(r.body).id).sort(), pendingIds.sort());
        // New windows follow p0, and p0 is dropped whole (old tables included) once past retention.
        const made = await legacy.maintain({ retentionDays: 30, ahead: 2 });
        assert.ok(made.created.length > 0);
        clock += 40 * DAY;
        const report = await legacy.maintain({ retentionDays: 30, ahead: 2 });
        assert.ok(report.dropped.includes('p0'), JSON.stringify(report));
        for (const table of ['webhook_events', 'webhook_deliveries', 'webhook_attempts']) {
          const left = (await partitions(table, old.sql, old.schema)).map((x) => x.name);
          assert.ok(!left.some((x) => x.includes('_p0')), left.join());
        }
      } finally {
        await rx.close();
      }
    } finally {
      await old.close();
    }
  });
});
