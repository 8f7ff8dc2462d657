// A window made by maintain (CREATE TABLE ... LIKE, then ATTACH PARTITION) has what a window made
// with CREATE TABLE ... PARTITION OF (the code before session 10) has: the same columns, indexes,
// constraints, storage parameters, replica identity, owner and privileges. The old-style window is
// made in a transaction that is rolled back, for a range past every window.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Queryable } from '@surety/db';
import { createTestDatabase, postgresUrl, type TestDatabase } from '@surety/db/testing';
import { parseAllowList, Webhooks } from '../src/index.js';
import { webhooksInternals } from '../src/testing.js';

const DAY = 86_400_000;
let db: TestDatabase;
const clock = Date.now();
let webhooks: Webhooks;

before(async () => {
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
  // A column's compression and statistics target set on the parent by an operator (lz4 only
  // where the server was built with it: PostgreSQL; PGlite has pglz only).
  const lz4 = postgresUrl ? 'lz4' : 'pglz';
  await db.sql.query(`alter table "${db.schema}".webhook_events alter column data set compression ${lz4}`);
  await db.sql.query(`alter table "${db.schema}".webhook_events alter column data set statistics 500`);
  await webhooks.maintain({ retentionDays: 30, ahead: 2 });
});
after(() => db?.close());

/** The catalog facts of partition `rel`, its name replaced by X. */
async function facts(q: Queryable, schema: string, rel: string) {
  const strip = (s: string) => s.replaceAll(rel, 'X');
  const oid = `'"${schema}".${rel}'::regclass`;
  const cols = await q.query(
    `select attname, atttypid::regtype::text as type, attnotnull, atthasdef, attidentity, attgenerated,
            attstorage, attcompression, attstattarget, attislocal, attinhcount, pg_get_expr(d.adbin, d.adrelid) as def
       from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      where attrelid = ${oid} and attnum > 0 and not attisdropped order by attnum`,
  );
  const idx = await q.query<{
    def: string;
    indisprimary: boolean;
    indisunique: boolean;
    parent: string | null;
  }>(
    `select pg_get_indexdef(x.indexrelid) as def, x.indisprimary, x.indisunique, x.indisreplident,
            (select p.inhparent::regclass::text from pg_inherits p where p.inhrelid = x.indexrelid) as parent
       from pg_index x where x.indrelid = ${oid}`,
  );
  const cons = await q.query(
    `select conname, contype, pg_get_constraintdef(oid) as def, conislocal, coninhcount, conparentid <> 0 as has_parent
       from pg_constraint where conrelid = ${oid}`,
  );
  const rel2 = await q.query(
    `select reloptions, relreplident, relpersistence, relowner::regrole::text as owner, relacl::text as acl,
            relrowsecurity, relispartition
       from pg_class where oid = ${oid}`,
  );
  // Index names are generated from the partition's name (and cut at 63 bytes): left out.
  const sort = (xs: unknown[]) =>
    xs.map((x) => strip(JSON.stringify(x)).replace(/INDEX \S+ ON/, 'INDEX ? ON')).sort();
  return {
    cols: sort(cols.rows),
    idx: sort(idx.rows),
    cons: sort(cons.rows).map((c) => c.replace(/"conname":"[^"]*"/, '"conname":"?"')),
    rel: sort(rel2.rows),
  };
}

test('a window made by maintain has the catalog of one made with PARTITION OF', async () => {
  const { rows: w } = await db.sql.query<{ suffix: string }>(
    `select suffix from "${db.schema}".webhook_partitions where suffix <> 'p0' order by ends_at desc limit 1`,
  );
  const suffix = w[0]!.suffix;
  const far = new Date(clock + 400 * DAY).toISOString();
  const farEnd = new Date(clock + 401 * DAY).toISOString();
  const storage: Record<string, string> = { webhook_deliveries: 'with (fillfactor = 50)' };
  for (const table of ['webhook_events', 'webhook_deliveries', 'webhook_attempts']) {
    const made = await facts(db.sql, db.schema, `${table}_${suffix}`);
    const old = await db.sql
      .transaction(async (tx) => {
        const isEvents = table === 'webhook_events';
        const lo = isEvents
          ? `'${far}'::timestamptz`
          : `"${db.schema}".webhook_time_id('${table === 'webhook_deliveries' ? 'dlv' : 'att'}', '${far}')`;
        const hi = isEvents
          ? `'${farEnd}'::timestamptz`
          : `"${db.schema}".webhook_time_id('${table === 'webhook_deliveries' ? 'dlv' : 'att'}', '${farEnd}')`;
        const bounds = await tx.query<{ lo: string; hi: string }>(
          `select (${lo})::text as lo, (${hi})::text as hi`,
        );
        const b = bounds.rows[0]!;
        await tx.query(
          `create table "${db.schema}".${table}_pold partition of "${db.schema}".${table}
             for values from ('${b.lo}') to ('${b.hi}') ${storage[table] ?? ''}`,
        );
        if (isEvents)
          await tx.query(`create index ${table}_pold_key on "${db.schema}".${table}_pold (tenant, id)`);
        const f = await facts(tx, db.schema, `${table}_pold`);
        throw Object.assign(new Error('rollback'), { facts: f });
      })
      .catch((e: { facts?: unknown }) => {
        if (!e.facts) throw e;
        return e.facts as typeof made;
      });
    const norm = (f: typeof made) =>
      JSON.parse(JSON.stringify(f).replaceAll(`${table}_${suffix}`, 'X').replaceAll(`${table}_pold`, 'X'));
    assert.deepEqual(norm(made), norm(old), table);
  }
});
