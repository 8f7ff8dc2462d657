// The partition windows of the history tables (migrations 000014-000016; partitions.ts runs them).
// DDL takes no parameters: every value below is a bound computed by the database or a timestamp
// produced here, written with `literal`.
import { literal, type Queryable, sqlState } from '@surety/db';
import { lockId, type Names } from './schema.js';

/** A history table and how its partition key is bounded for a time. */
export interface HistoryTable {
  table: string;
  key: string;
  /** Prefix of a time-ordered id key (`dlv`), or null for a timestamp key. */
  prefix: string | null;
  /** Storage parameters of each partition (a partition does not inherit its parent's). */
  storage: string;
}

/** Events by creation time; deliveries and attempts by their time-ordered ids. */
export const HISTORY: readonly HistoryTable[] = [
  { table: 'webhook_events', key: 'created_at', prefix: null, storage: '' },
  // fillfactor 50: room for the claim's in-page (HOT) update of every row (migration 000022).
  { table: 'webhook_deliveries', key: 'id', prefix: 'dlv', storage: 'with (fillfactor = 50)' },
  { table: 'webhook_attempts', key: 'id', prefix: 'att', storage: '' },
];

/** A window, its bounds in milliseconds (p0 starts at -Infinity). */
export interface Window {
  suffix: string;
  startsMs: number;
  endsMs: number;
}

const WINDOW = `suffix, (extract(epoch from starts_at) * 1000)::float8::text as starts,
  (extract(epoch from ends_at) * 1000)::float8::text as ends`;
const toWindow = (r: { suffix: string; starts: string; ends: string }): Window => ({
  suffix: r.suffix,
  startsMs: Number(r.starts),
  endsMs: Number(r.ends),
});
/** A bound as a timestamptz parameter. */
const ts = (ms: number) => (ms === Number.NEGATIVE_INFINITY ? '-infinity' : new Date(ms).toISOString());

type Tables = Pick<Names, 'qs' | 'P' | 'D' | 'EV' | 'A' | 'K' | 'schema'>;

/** Serialises maintenance of one schema across processes (each step is one transaction). */
const maintenanceLock = (schema: string) => lockId(`surety.webhooks.partitions:${schema}`);

/** The window with the latest end. */
export async function lastWindow(q: Queryable, t: Tables): Promise<Window> {
  const { rows } = await q.query<{ suffix: string; starts: string; ends: string }>(
    `select ${WINDOW} from ${t.P} order by ends_at desc limit 1`,
  );
  return toWindow(rows[0]!);
}

/** The database's clock (`now()`), in milliseconds: what maintenance decides by (issue 30). */
export async function databaseNow(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ t: string }>(
    `select (extract(epoch from now()) * 1000)::float8::text as t`,
  );
  return Number(rows[0]!.t);
}

/**
 * Stretches of time no window covers between two windows, the later ending after `afterMs`
 * (older ones are past retention): rows dated there land in DEFAULT, which retention never drops.
 */
export async function windowGaps(q: Queryable, t: Tables, afterMs: number): Promise<Window[]> {
  const { rows } = await q.query<{ starts: string; ends: string }>(
    `select (extract(epoch from prev) * 1000)::float8::text as starts,
            (extract(epoch from starts_at) * 1000)::float8::text as ends
       from (select starts_at, ends_at, lag(ends_at) over (order by starts_at) as prev from ${t.P}) w
      where prev < starts_at and ends_at > $1
      order by starts_at`,
    [ts(afterMs)],
  );
  return rows.map((r) => ({ suffix: '', startsMs: Number(r.starts), endsMs: Number(r.ends) }));
}

/** Windows that end at or before `cutoffIso`, oldest first. */
export async function expiredWindows(q: Queryable, t: Tables, cutoffMs: number): Promise<Window[]> {
  const { rows } = await q.query<{ suffix: string; starts: string; ends: string }>(
    `select ${WINDOW} from ${t.P} where ends_at <= $1 order by ends_at`,
    [ts(cutoffMs)],
  );
  return rows.map(toWindow);
}

async function bound(q: Queryable, t: Tables, h: HistoryTable, atMs: number): Promise<string> {
  if (h.prefix === null) return `${literal(ts(atMs))}::timestamptz`;
  const { rows } = await q.query<{ b: string }>(`select ${t.qs}.webhook_time_id($1, $2) as b`, [
    h.prefix,
    ts(atMs),
  ]);
  return literal(rows[0]!.b);
}

const setLockTimeout = (q: Queryable, ms: number) =>
  q.query(`set local lock_timeout = ${Math.max(1, Math.floor(ms))}`);

/**
 * Creates window `suffix` = [startsAt, endsAt) in every history table, unless a window already
 * overlaps the range (another process created it first): false then. Rows the DEFAULT
 * partition caught for the range are moved into the new partitions in the same transaction. Every
 * lock waits at most `lockTimeoutMs` (a statement behind this one's request waits that long too).
 */
export async function createWindow(
  q: Queryable,
  t: Tables,
  input: { suffix: string; startsMs: number; endsMs: number; lockTimeoutMs: number },
): Promise<boolean> {
  await setLockTimeout(q, input.lockTimeoutMs);
  await q.query(`select 1 from pg_advisory_xact_lock(${maintenanceLock(t.schema)})`); // void: not read back
  const { rows: overlap } = await q.query(`select 1 from ${t.P} where starts_at < $2 and ends_at > $1`, [
    ts(input.startsMs),
    ts(input.endsMs),
  ]);
  if (overlap.length > 0) return false;
  // A column's compression set on the parent (ALTER COLUMN ... SET COMPRESSION), which PARTITION OF
  // carried and LIKE copies only when asked (PostgreSQL 14+, where compression can be set).
  const { rows: version } = await q.query<{ v: number }>(
    `select current_setting('server_version_num')::int as v`,
  );
  const compression = version[0]!.v >= 140000 ? ' including compression' : '';
  for (const h of HISTORY) {
    const lo = await bound(q, t, h, input.startsMs);
    const hi = await bound(q, t, h, input.endsMs);
    const part = `${t.qs}.${h.table}_${input.suffix}`;
    const moved = `surety_moved_${h.table}`;
    // ATTACH's lock on the DEFAULT partition, taken before its rows are moved: no row for the
    // range can reach it between the move and ATTACH's check of it (which would fail the step).
    await q.query(`lock table ${t.qs}.${h.table}_default in access exclusive mode`);
    await q.query(`create temp table ${moved} (like ${t.qs}.${h.table}) on commit drop`);
    await q.query(
      `with m as (delete from ${t.qs}.${h.table}_default where ${h.key} >= ${lo} and ${h.key} < ${hi} returning *)
       insert into ${moved} select * from m`,
    );
    // CREATE TABLE, then ATTACH: ATTACH takes SHARE UPDATE EXCLUSIVE on the parent (and ACCESS
    // EXCLUSIVE on its DEFAULT partition), so inserts into the other windows and reads pruned to
    // them go on while it waits; CREATE TABLE ... PARTITION OF takes ACCESS EXCLUSIVE on the parent.
    await q.query(
      `create table ${part} (like ${t.qs}.${h.table} including defaults including constraints
         including generated including storage${compression}) ${h.storage}`,
    );
    // The events' (tenant, id) lookups: per partition (a partitioned table cannot hold it unique).
    if (h.table === 'webhook_events') {
      await q.query(`create index ${h.table}_${input.suffix}_key on ${part} (tenant, id)`);
    }
    await q.query(
      `alter table ${t.qs}.${h.table} attach partition ${part} for values from (${lo}) to (${hi})`,
    );
    await q.query(`insert into ${t.qs}.${h.table} select * from ${moved}`);
    await q.query(`drop table ${moved}`);
  }
  await q.query(`insert into ${t.P} (suffix, starts_at, ends_at) values ($1, $2, $3)`, [
    input.suffix,
    ts(input.startsMs),
    ts(input.endsMs),
  ]);
  return true;
}

/** What dropping a window found: dropped, or kept for its pending deliveries. */
export type DropResult = { kind: 'dropped' } | { kind: 'pending'; pending: number } | { kind: 'gone' };

/**
 * Drops window `suffix`'s partitions, unless a delivery that is still pending lies in it or
 * belongs to one of its events (then nothing changes). The history tables are locked before the
 * last count, so no delivery can be queued for its events or made pending again before the drop.
 */
export async function dropWindow(
  q: Queryable,
  t: Tables,
  input: { suffix: string; lockTimeoutMs: number },
): Promise<DropResult> {
  await setLockTimeout(q, input.lockTimeoutMs);
  await q.query(`select 1 from pg_advisory_xact_lock(${maintenanceLock(t.schema)})`); // void: not read back
  const { rows: still } = await q.query(`select 1 from ${t.P} where suffix = $1`, [input.suffix]);
  if (still.length === 0) return { kind: 'gone' };
  // Each table's partitions of the window: `<table>_<suffix>`, and for p0 the old table of
  // deliveries and attempts, `<table>_p0_legacy` (migration 000016).
  const { rows: parts } = await q.query<{ tbl: string; part: string }>(
    `select h.t as tbl, c.relname as part
       from unnest($1::text[]) as h(t)
       join pg_class c on c.relname in (h.t || '_' || $2, h.t || '_' || $2 || '_legacy')
       join pg_namespace n on n.oid = c.relnamespace and n.nspname = $3`,
    [HISTORY.map((h) => h.table), input.suffix, t.schema],
  );
  // Pending deliveries in the window, or in any window for one of its events: each counted once.
  const own = parts
    .filter((p) => p.tbl === 'webhook_deliveries')
    .map((p) => literal(`${t.schema}.${p.part}`) + '::regclass');
  const events = parts.filter((p) => p.tbl === 'webhook_events').map((p) => `${t.qs}.${p.part}`);
  const conditions = [
    ...(own.length > 0 ? [`d.tableoid in (${own.join(', ')})`] : []),
    ...events.map((e) => `exists (select 1 from ${e} e where e.tenant = d.tenant and e.id = d.event_id)`),
  ];
  const count = async () =>
    (
      await q.query<{ pending: number }>(
        `select count(*)::int as pending from ${t.D} d
          where d.status = 'pending' and (${conditions.length > 0 ? conditions.join(' or ') : 'false'})`,
      )
    ).rows[0]!.pending;
  // Counted first without the exclusive locks (a held window costs no lock at every run), then
  // again under them, so that nothing can become pending between the count and the drop.
  let pending = await count();
  if (pending > 0) return { kind: 'pending', pending };
  await q.query(`lock table ${t.EV}, ${t.D}, ${t.A} in access exclusive mode`);
  pending = await count();
  if (pending > 0) return { kind: 'pending', pending };
  for (const p of parts) await q.query(`drop table ${t.qs}.${p.part}`);
  await q.query(`delete from ${t.P} where suffix = $1`, [input.suffix]);
  return { kind: 'dropped' };
}

/**
 * Deletes the chosen event ids of a dropped window, `batch` rows at a time (narrow rows, only for
 * ids a publisher chose); how many.
 */
export async function forgetEventIds(
  q: Queryable,
  t: Tables,
  input: { startsMs: number; endsMs: number; batch: number; maxBatches: number },
): Promise<number> {
  let total = 0;
  for (let i = 0; i < input.maxBatches; i++) {
    const { rows } = await q.query<{ n: number }>(
      `with d as (
         delete from ${t.K} where ctid = any (array(
           select ctid from ${t.K} where created_at >= $1 and created_at < $2 limit $3))
         returning 1)
       select count(*)::int as n from d`,
      [ts(input.startsMs), ts(input.endsMs), input.batch],
    );
    total += rows[0]!.n;
    if (rows[0]!.n < input.batch) break;
  }
  return total;
}

/** A lock the maintenance could not take in time (lock_timeout) or a deadlock it lost. */
export const isLockConflict = (error: unknown) => {
  const state = sqlState(error);
  return state === '55P03' || state === '40P01';
};
