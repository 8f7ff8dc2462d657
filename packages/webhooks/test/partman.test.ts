// pg_partman managing the history's partitions instead of Webhooks.maintain (issue 22;
// docs/operations.md, "Letting pg_partman manage the partitions"): the section's SQL, read from the
// document and run as written on a fresh schema, then publish / claim / complete on the partitions
// it made, windows created ahead, and retention that keeps a window while a delivery in it, or for
// one of its events, is pending. Needs a PostgreSQL server whose pg_partman has the time
// encoder/decoder hooks (text control columns); skips with the reason otherwise. pg_partman runs on
// the database's clock: old windows are made with its create_partition_time and filled by
// publishing with an injected clock 40 days back.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { createPgSql } from '@surety/db';
import { createTestDatabase, needsPostgres, postgresUrl, type TestDatabase } from '@surety/db/testing';
import { DeliveryWorker, parseAllowList, Webhooks } from '../src/index.js';
import { startReceiver } from '../src/testing.js';

const DAY = 86_400_000;
const SECTION = '### Letting pg_partman manage the partitions';
const TABLES = ['webhook_events', 'webhook_deliveries', 'webhook_attempts'] as const;

/** The SQL blocks of the docs section, in order. */
function recipe(): string[] {
  const doc = readFileSync(new URL('../../../docs/operations.md', import.meta.url), 'utf8');
  const start = doc.indexOf(SECTION);
  assert.ok(start >= 0, `docs/operations.md has no "${SECTION}"`);
  const rest = doc.slice(start + SECTION.length);
  const end = rest.search(/\n#{1,3} /);
  const section = end < 0 ? rest : rest.slice(0, end);
  return [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** A block's statements (one per query: the driver answers one result per query), without its
 * comment lines and its `begin;`/`commit;` (the test runs the block in a transaction). */
function statements(block: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  for (const line of block.split('\n')) {
    if (/^\s*--/.test(line) && !quoted) continue;
    current += `${line}\n`;
    if ((line.match(/\$\$/g) ?? []).length % 2 === 1) quoted = !quoted;
    if (!quoted && /;\s*$/.test(line)) {
      if (!/^\s*(begin|commit);\s*$/.test(current)) out.push(current.trim().replace(/;$/, ''));
      current = '';
    }
  }
  assert.equal(current.trim(), '', 'every statement ends with ;');
  return out;
}

/** Why this file cannot run here, or false: a server whose pg_partman (5.1 or later) has the hooks. */
async function probe(): Promise<{ skip: string | false }> {
  if (needsPostgres) return { skip: needsPostgres };
  const sql = createPgSql({ connectionString: postgresUrl!, max: 1 });
  try {
    const { rows } = await sql.query<{ v: string | null }>(
      `select default_version as v from pg_available_extensions where name = 'pg_partman'`,
    );
    const v = rows[0]?.v;
    if (!v) return { skip: 'pg_partman is not available in this server (pg_available_extensions)' };
    const [major, minor] = v.split('.').map(Number);
    if (major! < 5 || (major === 5 && minor! < 1)) {
      return {
        skip: `pg_partman ${v} is older than 5.1 (docs/operations.md: it can manage the events only)`,
      };
    }
    // The encoder/decoder hooks are not in every 5.x: look in an installation, rolled back when
    // made here for the look.
    const hooks = await sql
      .transaction(async (tx) => {
        const { rows: ext } = await tx.query<{ s: string }>(
          `select n.nspname as s from pg_extension e join pg_namespace n on n.oid = e.extnamespace
            where e.extname = 'pg_partman'`,
        );
        let schema = ext[0]?.s;
        if (!schema) {
          schema = 'surety_partman_probe';
          await tx.query(`create schema ${schema}`);
          await tx.query(`create extension pg_partman schema ${schema}`);
        }
        const { rows: found } = await tx.query(
          `select 1 from pg_proc where pronamespace = $1::regnamespace and proname = 'create_parent'
              and 'p_time_encoder' = any (proargnames)`,
          [schema],
        );
        throw Object.assign(new Error('rollback'), { found: found.length > 0 });
      })
      .catch(
        (e: { found?: boolean; message?: string }) => e.found ?? `cannot create pg_partman: ${e.message}`,
      );
    if (typeof hooks === 'string') return { skip: hooks };
    if (!hooks) {
      return {
        skip: `pg_partman ${v} has no p_time_encoder/p_time_decoder (text control columns): it can manage the events only (docs/operations.md)`,
      };
    }
    return { skip: false };
  } finally {
    await sql.close();
  }
}

const probed = await probe();
let db: TestDatabase;
let pm = '';
let ourExtension = false;
let clock = Date.now();
let webhooks: Webhooks;
let blocks: string[];
/** The section's SQL for this test's schemas. */
const here = (text: string) => text.replace(/\bsurety\./g, `${db.schema}.`).replace(/\bpartman\./g, `${pm}.`);

const worker = () =>
  new DeliveryWorker({
    webhooks,
    listen: false,
    random: () => 0,
    timeoutMs: 2000,
    guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
  });

/** A table's partitions and their bounds, by name. */
async function partitions(table: string) {
  const { rows } = await db.sql.query<{ name: string; bound: string; options: string[] | null }>(
    `select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound, c.reloptions as options
       from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = $1::regclass order by c.relname`,
    [`${db.schema}.${table}`],
  );
  return rows;
}

/** The partitions holding the rows of `table` that match. */
async function partitionOf(table: string, where: string, params: unknown[]) {
  const { rows } = await db.sql.query<{ p: string }>(
    `select tableoid::regclass::text as p from ${db.schema}.${table} where ${where} order by 1`,
    params,
  );
  return rows.map((r) => r.p.replace(/^.*\./, ''));
}

/**
 * A window of the three tables for the UTC day of `ms`, by pg_partman's create_partition_time (which
 * starts a window at the very time it is given, and names it in the session's time zone).
 */
const oldWindow = (ms: number) =>
  db.sql.transaction(async (tx) => {
    await tx.query(`set local timezone = 'UTC'`);
    for (const table of TABLES) {
      await tx.query(`select ${pm}.create_partition_time($1, array[$2::timestamptz])`, [
        `${db.schema}.${table}`,
        new Date(Math.floor(ms / DAY) * DAY).toISOString(),
      ]);
    }
  });

const suffixOf = (ms: number) => `p${new Date(ms).toISOString().slice(0, 10).replaceAll('-', '')}`;

/** The docs' maintenance call: the retention it used, in days. */
async function maintain() {
  const [call] = statements(blocks[2]!);
  const { rows } = await db.sql.query<{ r: string }>(
    `select extract(epoch from (${here(call!).replace(/^select /, '')}))::float8::text as r`,
  );
  return Number(rows[0]!.r) / 86_400;
}

describe('pg_partman manages the history partitions (docs/operations.md)', { skip: probed.skip }, () => {
  before(async () => {
    blocks = recipe();
    assert.equal(blocks.length, 3, 'setup, maintenance function, maintenance call');
    db = await createTestDatabase({ max: 4 });
    const { rows } = await db.sql.query<{ s: string }>(
      `select n.nspname as s from pg_extension e join pg_namespace n on n.oid = e.extnamespace
        where e.extname = 'pg_partman'`,
    );
    if (rows[0]) pm = rows[0].s;
    else {
      pm = `${db.schema}_pm`;
      ourExtension = true;
      await db.sql.query(`create schema ${pm}`);
      await db.sql.query(`create extension pg_partman schema ${pm}`);
    }
    webhooks = new Webhooks({
      sql: db.sql,
      schema: db.schema,
      allowHttp: true,
      allowList: parseAllowList('127.0.0.1/32'),
      now: () => clock,
    });
    await webhooks.migrate();
  });
  after(async () => {
    if (!db) return;
    if (ourExtension) {
      await db.sql.query('drop extension if exists pg_partman cascade');
      await db.sql.query(`drop schema if exists ${pm} cascade`);
    } else if (pm) {
      await db.sql.query(`delete from ${pm}.part_config where parent_table like $1`, [`${db.schema}.%`]);
      for (const t of TABLES) await db.sql.query(`drop table if exists ${pm}.template_${db.schema}_${t}`);
    }
    await db.close();
  });

  test('the setup makes daily windows named and bounded as Webhooks.maintain would, 7 ahead', async () => {
    await db.sql.transaction(async (tx) => {
      for (const statement of statements(blocks[0]!)) await tx.query(here(statement));
    });
    for (const statement of statements(blocks[1]!)) await db.sql.query(here(statement));
    const today = Math.floor(Date.now() / DAY) * DAY;
    for (const table of TABLES) {
      const parts = await partitions(table);
      const windows = parts.filter((p) => p.name !== `${table}_default`);
      assert.ok(
        parts.some((p) => p.name === `${table}_default` && p.bound === 'DEFAULT'),
        `${table}: a DEFAULT partition`,
      );
      assert.ok(windows.length >= 8, `${table}: ${windows.length} windows`);
      for (const w of windows) {
        const m = /_p(\d{4})(\d{2})(\d{2})$/.exec(w.name);
        assert.ok(m, w.name);
        const starts = Date.parse(`${m[1]}-${m[2]}-${m[3]}T00:00:00Z`);
        // The bounds Surety's own windows have: UTC midnights, as ids for deliveries and attempts.
        const { rows } = await db.sql.query<{ lo: string; hi: string }>(
          table === 'webhook_events'
            ? `select $1::timestamptz::text as lo, $2::timestamptz::text as hi, $3::text as prefix`
            : `select ${db.schema}.webhook_time_id($3, $1) as lo, ${db.schema}.webhook_time_id($3, $2) as hi`,
          [
            new Date(starts).toISOString(),
            new Date(starts + DAY).toISOString(),
            table === 'webhook_deliveries' ? 'dlv' : 'att',
          ],
        );
        assert.equal(w.bound, `FOR VALUES FROM ('${rows[0]!.lo}') TO ('${rows[0]!.hi}')`, w.name);
        if (table === 'webhook_deliveries') assert.deepEqual(w.options, ['fillfactor=50'], w.name);
      }
      assert.ok(
        windows.some((w) => w.name === `${table}_${suffixOf(today + 7 * DAY)}`),
        `${table}: 7 ahead`,
      );
    }
    // Each events partition has its (tenant, id) index.
    for (const p of await partitions('webhook_events')) {
      const { rows } = await db.sql.query<{ def: string }>(
        `select pg_get_indexdef(indexrelid) as def from pg_index where indrelid = $1::regclass`,
        [`${db.schema}.${p.name}`],
      );
      assert.ok(
        rows.some((r) => r.def.endsWith('(tenant, id)')),
        `${p.name}: ${rows.map((r) => r.def).join('; ')}`,
      );
    }
    // Webhooks.maintain, still run by the service beside its workers, leaves them alone.
    const before = await partitions('webhook_deliveries');
    const report = await webhooks.maintain({ retentionDays: 30 });
    assert.deepEqual([report.created, report.dropped, report.held], [[], [], []]);
    assert.deepEqual(await partitions('webhook_deliveries'), before);
  });

  test('maintenance creates missing windows ahead', async () => {
    const ahead = (table: string) =>
      partitions(table).then((ps) => ps.filter((p) => p.name > `${table}_${suffixOf(Date.now() + 5 * DAY)}`));
    for (const table of TABLES) {
      const drop = await ahead(table);
      assert.ok(drop.length >= 2, table);
      for (const p of drop) await db.sql.query(`drop table ${db.schema}.${p.name}`);
      assert.deepEqual(await ahead(table), []);
    }
    assert.equal(await maintain(), 30);
    for (const table of TABLES) {
      const names = (await ahead(table)).map((p) => p.name);
      assert.ok(names.includes(`${table}_${suffixOf(Date.now() + 7 * DAY)}`), `${table}: ${names.join()}`);
    }
  });

  test('publish, claim and complete use its windows; retention waits for pending deliveries', async () => {
    let answer = 204;
    const rx = await startReceiver((_r, _n, res) => void res.writeHead(answer).end());
    try {
      const tenant = 'tp';
      await webhooks.createEndpoint(db.sql, { tenant, url: rx.url, eventTypes: ['*'] });
      const publish = (id?: string) =>
        db.sql.transaction((tx) =>
          webhooks.publish(tx, { tenant, type: 'order.created', data: {}, ...(id ? { id } : {}) }),
        );
      const where = (id: string): [string, unknown[]] => ['tenant = $1 and event_id = $2', [tenant, id]];
      const inWindow = async (id: string, suffix: string) => {
        assert.deepEqual(await partitionOf('webhook_events', 'tenant = $1 and id = $2', [tenant, id]), [
          `webhook_events_${suffix}`,
        ]);
        const attempts = `delivery_id in (select id from ${db.schema}.webhook_deliveries where ${where(id)[0]})`;
        for (const table of ['webhook_deliveries', 'webhook_attempts']) {
          const ps = await partitionOf(
            table,
            table === 'webhook_attempts' ? attempts : where(id)[0],
            where(id)[1],
          );
          assert.ok(ps.length > 0, `${table}: rows of ${id}`);
          assert.ok(
            ps.every((p) => p === `${table}_${suffix}`),
            `${table}: ${ps.join()}`,
          );
        }
      };

      // Today: delivered, every row in today's windows.
      clock = Date.now();
      const now = await publish('order-today');
      assert.equal(await worker().drain(), 1);
      await inWindow(now.id, suffixOf(clock));

      // 40 days ago: windows made with pg_partman's own function, one event delivered, one pending
      // (its receiver answers 500 and it waits for a retry).
      const old = Date.now() - 40 * DAY;
      await oldWindow(old);
      clock = old;
      const sent = await publish('order-old');
      assert.equal(await worker().drain(), 1);
      answer = 500;
      const pending = await publish();
      assert.equal(await worker().drain(), 1);
      for (const id of [sent.id, pending.id]) await inWindow(id, suffixOf(old));
      for (const table of TABLES) {
        const left = await db.sql.query(`select 1 from ${db.schema}.${table}_default`);
        assert.equal(left.rows.length, 0, `${table}_default is empty`);
      }
      const windowsOf = async (suffix: string) =>
        (
          await Promise.all(
            TABLES.map((t) => partitions(t).then((ps) => ps.filter((p) => p.name === `${t}_${suffix}`))),
          )
        ).flat().length;
      assert.equal(await windowsOf(suffixOf(old)), 3);

      // Past retention, but a delivery in it is pending: kept, with the retention that reaches it.
      clock = Date.now();
      assert.ok((await maintain()) >= 40);
      assert.equal(await windowsOf(suffixOf(old)), 3, 'kept for the pending delivery');

      // Delivered: the next run drops the window's three partitions.
      answer = 204;
      assert.equal(await worker().drain(), 1);
      assert.equal(await maintain(), 30);
      assert.equal(await windowsOf(suffixOf(old)), 0, 'dropped');
      assert.equal(await webhooks.getEvent(db.sql, { tenant, id: sent.id }), undefined);
      assert.ok(await webhooks.getEvent(db.sql, { tenant, id: now.id }));

      // The chosen ids of dropped events: deleted by the docs' statement; today's stays.
      const [, forget] = statements(blocks[2]!);
      assert.match(forget!, /^delete from surety\.webhook_event_ids /);
      await db.sql.query(here(forget!));
      const { rows: ids } = await db.sql.query<{ id: string }>(
        `select id from ${db.schema}.webhook_event_ids where tenant = $1 order by id`,
        [tenant],
      );
      assert.deepEqual(
        ids.map((r) => r.id),
        ['order-today'],
      );
    } finally {
      await rx.close();
    }
  });

  test("a replayed old event: its window waits for the replay's pending delivery in today's window", async () => {
    let answer = 204;
    const rx = await startReceiver((_r, _n, res) => void res.writeHead(answer).end());
    try {
      const tenant = 'tr';
      const { endpoint } = await webhooks.createEndpoint(db.sql, { tenant, url: rx.url, eventTypes: ['*'] });
      const old = Date.now() - 35 * DAY;
      await oldWindow(old);
      clock = old;
      const ev = await db.sql.transaction((tx) =>
        webhooks.publish(tx, { tenant, type: 'order.created', data: {} }),
      );
      assert.equal(await worker().drain(), 1);
      clock = Date.now();
      answer = 500;
      assert.equal(
        await webhooks.replayEvent(db.sql, { tenant, eventId: ev.id, endpointId: endpoint.id }),
        1,
      );
      assert.equal(await worker().drain(), 1);
      const replayed = await partitionOf('webhook_deliveries', "tenant = $1 and status = 'pending'", [
        tenant,
      ]);
      assert.deepEqual(replayed, [`webhook_deliveries_${suffixOf(clock)}`], "queued in today's window");
      assert.ok((await maintain()) >= 35);
      assert.ok(await webhooks.getEvent(db.sql, { tenant, id: ev.id }), 'the event stays');
      answer = 204;
      clock += DAY;
      assert.equal(await worker().drain(), 1);
      assert.equal(await maintain(), 30);
      assert.equal(await webhooks.getEvent(db.sql, { tenant, id: ev.id }), undefined);
    } finally {
      await rx.close();
    }
  });
});
