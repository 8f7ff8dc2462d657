// The server side of the purge benchmark (purge-serve.ts): what PostgreSQL does while the purge runs,
// sampled every 250 ms (CPU per process kind from /proc, the serving backends' waits, the key table's
// vacuum), and the counters read around each purge call (autovacuums, pg_stat_wal).
import { createPgSql, type Sql } from '@surety/db';
import { procStat } from '../lib/cpu.js';

/** CPU ms per server process kind, wait events of the serving backends, and the vacuum's timeline. */
export interface Diagnostics {
  /** CPU ms by process kind (serving backends, the purge backend, autovacuum worker, checkpointer, …) and phase. */
  cpu: Record<'before' | 'during' | 'after', Record<string, number>>;
  /** Seconds each phase lasted (for CPU shares). */
  phaseSeconds: Record<'before' | 'during' | 'after', number>;
  /** How often a serving backend was seen waiting, by wait event, during the purge. */
  waits: Record<string, number>;
  /** Samples taken of the serving backends during the purge (the denominator of `waits`). */
  waitSamples: number;
  /** Autovacuum (or vacuum) of the key table: seconds after the purge started, first and last seen. */
  vacuum?: { from: number; to: number; phases: string[] };
  /** p99 of the requests during the purge that ended while the key table's vacuum ran / did not. */
  p99WhileVacuum?: number;
  p99WithoutVacuum?: number;
  /** The top statements by total time during the purge (pg_stat_statements, when loaded). */
  statements: { query: string; calls: number; meanMs: number; maxMs: number; totalMs: number }[];
}

/** The purge's connection, by name: its pool may replace it (idle timeout) during the before-window. */
export const PURGE_APP = 'surety-bench-purge';

/** The server's processes by pid: kind as pg_stat_activity names it (client backends by role). */
async function serverProcesses(sql: Sql) {
  const { rows } = await sql.query<{
    pid: number;
    kind: string;
    app: string;
    wait: string | null;
    state: string | null;
    query: string | null;
  }>(
    `select pid, backend_type as kind, application_name as app, wait_event_type || ':' || wait_event as wait, state, query from pg_stat_activity`,
  );
  return rows.map(({ app, ...r }) => ({
    ...r,
    kind: app === PURGE_APP ? 'purge backend' : r.kind === 'client backend' ? 'serving backends' : r.kind,
  }));
}

/**
 * Samples every 250 ms, until stopped: CPU per server process kind (from /proc), what the serving
 * backends wait on, and when a vacuum of the key table runs. Phase is read from `phase()`.
 */
export function sampleServer(
  url: string,
  schema: string,
  phase: () => 'before' | 'during' | 'after',
  t0: () => number,
) {
  const sql = createPgSql({ connectionString: url, max: 1 });
  const diag: Diagnostics = {
    cpu: { before: {}, during: {}, after: {} },
    phaseSeconds: { before: 0, during: 0, after: 0 },
    waits: {},
    waitSamples: 0,
    statements: [],
  };
  const vacuumAt: { t: number; on: boolean }[] = [];
  const last = new Map<number, number>();
  let stopped = false;
  let lastT = performance.now();
  let ownPid = -1;
  const loop = (async () => {
    ownPid = (await sql.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    for (let i = 0; i < 10_000 && !stopped; i++) {
      const ph = phase();
      const procs = await serverProcesses(sql).catch(() => []);
      const { rows: vac } = await sql
        .query<{ phase: string }>(
          `select phase from pg_stat_progress_vacuum where relid = ($1 || '.idempotency_keys')::regclass`,
          [schema],
        )
        .catch(() => ({ rows: [] as { phase: string }[] }));
      const now = performance.now();
      diag.phaseSeconds[ph] += (now - lastT) / 1000;
      lastT = now;
      for (const p of procs) {
        if (p.pid === ownPid) continue;
        const c = procStat(p.pid)?.ms;
        if (c === undefined) continue;
        const prev = last.get(p.pid);
        last.set(p.pid, c);
        if (prev !== undefined) diag.cpu[ph][p.kind] = (diag.cpu[ph][p.kind] ?? 0) + (c - prev);
        if (ph === 'during' && p.kind === 'serving backends' && p.state === 'active') {
          diag.waits[p.wait ?? 'CPU'] = (diag.waits[p.wait ?? 'CPU'] ?? 0) + 1;
        }
      }
      if (ph === 'during') diag.waitSamples++;
      const on = vac.length > 0;
      vacuumAt.push({ t: now, on });
      if (on) {
        const rel = (now - t0()) / 1000;
        diag.vacuum ??= { from: rel, to: rel, phases: [] };
        diag.vacuum.to = rel;
        if (!diag.vacuum.phases.includes(vac[0]!.phase)) diag.vacuum.phases.push(vac[0]!.phase);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  return {
    diag,
    /** Was the key table being vacuumed at time t (the nearest sample at or before it)? */
    vacuumAt(t: number): boolean {
      let on = false;
      for (const v of vacuumAt) {
        if (v.t > t) break;
        on = v.on;
      }
      return on;
    },
    async stop() {
      stopped = true;
      await loop.catch(() => {});
      await sql.close();
    },
  };
}

export async function autovacuums(sql: Sql, schema: string): Promise<number> {
  // a vacuum in progress counts: pg_stat_progress_vacuum lists it before autovacuum_count moves
  const { rows } = await sql.query<{ n: string }>(
    `select (coalesce((select autovacuum_count from pg_stat_user_tables where schemaname = $1 and relname = 'idempotency_keys'), 0)
           + (select count(*) from pg_stat_progress_vacuum where relid = ($1 || '.idempotency_keys')::regclass))::text as n`,
    [schema],
  );
  return Number(rows[0]!.n);
}

export async function walStats(sql: Sql) {
  const { rows } = await sql
    .query<{ records: string; fpi: string; bytes: string; syncs: string }>(
      'select wal_records::text as records, wal_fpi::text as fpi, wal_bytes::text as bytes, wal_sync::text as syncs from pg_stat_wal',
    )
    .catch(() => ({ rows: [] }));
  const r = rows[0];
  return r && { records: +r.records, fpi: +r.fpi, bytes: +r.bytes, syncs: +r.syncs };
}
