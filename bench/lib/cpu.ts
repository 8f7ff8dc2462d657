// CPU time per process group between two snapshots, read from /proc (Linux): where a benchmark's
// operations spend the machine's cores (this process, PostgreSQL's backends and background
// processes, the receiver, a server under load). On a machine where everything shares two cores the
// sum is what bounds throughput, so the reports show it next to the rates.
//
// PostgreSQL is counted as one server: its postmaster (found from a backend's parent, `postgresServer`)
// and every process the postmaster forked, not every `postgres` process on the machine (another
// cluster on the same host, e.g. the one other tests use while the benchmark runs on its own, is left
// out). A backend that exits between the snapshots (a pool closing a connection) is not lost: the
// postmaster has reaped it, so its CPU is in the postmaster's children's time (cutime + cstime).
// Everything that server does counts: on an existing server named by DATABASE_URL, other databases'
// clients too (their closed backends cannot be told apart in the reaped time); the benchmark's own
// cluster serves nothing else.
import { readdirSync, readFileSync } from 'node:fs';

/** What `Classify` answers: a group's name, or a group whose reaped children's CPU counts too. */
export type Group = string | { group: string; reaps: true };

/** Names a process by its command line, pid and parent's pid, or undefined to leave it out. */
export type Classify = (cmdline: string, pid: number, ppid: number) => Group | undefined;

interface Entry {
  group: string;
  /** user + system ms of the process itself. */
  ms: number;
  ppid: number;
  /** user + system ms of its waited-for children, when its group counts them. */
  reaped?: number;
}
export type CpuSnapshot = Map<number, Entry> | undefined;

// USER_HZ: 100 on every Linux architecture Node runs on (sysconf(_SC_CLK_TCK) is not reachable
// from Node; the kernel fixes what /proc reports to 100 regardless of CONFIG_HZ on x86 and arm64).
const TICK_MS = 10;

/** `/proc/<pid>/stat`: parent, own and reaped children's CPU (ms); undefined if it is gone. */
export function procStat(pid: number): { ppid: number; ms: number; reaped: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may hold spaces) start at state (field 3): ppid is field 4,
    // utime and stime 14 and 15, cutime and cstime 16 and 17.
    const f = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    return { ppid: f[1]!, ms: (f[11]! + f[12]!) * TICK_MS, reaped: (f[13]! + f[14]!) * TICK_MS };
  } catch {
    return undefined;
  }
}

/** CPU used so far by every process `classify` names; undefined where /proc is absent. */
export function cpuSnapshot(classify: Classify): CpuSnapshot {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return undefined;
  }
  const out = new Map<number, Entry>();
  for (const p of pids) {
    const pid = Number(p);
    const stat = procStat(pid);
    if (!stat) continue; // exited between the listing and the read
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' ');
    } catch {
      continue;
    }
    const g = classify(cmdline, pid, stat.ppid);
    if (g === undefined) continue;
    out.set(
      pid,
      typeof g === 'string'
        ? { group: g, ms: stat.ms, ppid: stat.ppid }
        : { group: g.group, ms: stat.ms, ppid: stat.ppid, reaped: stat.reaped },
    );
  }
  return out;
}

/**
 * CPU ms per group from `before` to `after`. A process that started in between counts from zero. One
 * that exited in between is lost, unless its parent is in `after` with its reaped children counted
 * (PostgreSQL's postmaster): then its whole life is in the parent's reaped time, and the part before
 * `before` is taken off.
 */
export function cpuDelta(before: CpuSnapshot, after: CpuSnapshot): Record<string, number> | undefined {
  if (!before || !after) return undefined;
  const out: Record<string, number> = {};
  const add = (group: string, ms: number) => {
    out[group] = (out[group] ?? 0) + ms;
  };
  for (const [pid, e] of after) {
    const b = before.get(pid);
    add(e.group, e.ms - (b?.ms ?? 0) + (e.reaped ?? 0) - (b?.reaped ?? 0));
  }
  for (const [pid, b] of before) {
    if (after.has(pid)) continue;
    const parent = after.get(b.ppid);
    if (parent?.reaped !== undefined && parent.group === b.group) add(b.group, -b.ms);
  }
  for (const [group, ms] of Object.entries(out)) if (ms <= 0) delete out[group];
  return out;
}

/**
 * Any PostgreSQL process on the machine, by command line. Counts every cluster on the host; use
 * `postgresServer` to count only the one a benchmark talks to.
 */
export const postgresProcess = (cmdline: string) =>
  cmdline.startsWith('postgres') || cmdline.includes('/bin/postgres') ? 'postgres' : undefined;

/**
 * The processes of the PostgreSQL server at `url` as one group, `postgres`: its postmaster (the
 * parent of this connection's backend, `pg_backend_pid()`) with its reaped children, and every
 * process it forked (backends, WAL writer, checkpointer, autovacuum …). Falls back to
 * `postgresProcess` (every cluster on the host) when the backend is not visible in this /proc (a
 * server in another PID namespace), and says so on stderr.
 */
export async function postgresServer(
  url: string,
): Promise<(cmdline: string, pid: number, ppid: number) => Group | undefined> {
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  let backend: number;
  try {
    backend = (await c.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    const postmaster = procStat(backend)?.ppid;
    const cmdline = (() => {
      try {
        return readFileSync(`/proc/${postmaster}/cmdline`, 'utf8');
      } catch {
        return '';
      }
    })();
    if (postmaster !== undefined && postgresProcess(cmdline.replace(/\0/g, ' ')))
      return (_cmdline, pid, ppid) =>
        pid === postmaster
          ? { group: 'postgres', reaps: true }
          : ppid === postmaster
            ? 'postgres'
            : undefined;
  } finally {
    await c.end();
  }
  console.error(
    `PostgreSQL backend ${backend} is not visible in /proc: counting every postgres process on the host`,
  );
  return (cmdline) => postgresProcess(cmdline);
}

/** `{ group: µs per operation }` from a delta in ms. */
export function usPerOperation(
  delta: Record<string, number> | undefined,
  operations: number,
): Record<string, number> | undefined {
  if (!delta) return undefined;
  return Object.fromEntries(Object.entries(delta).map(([group, ms]) => [group, (ms * 1000) / operations]));
}

/** `group N µs, …`, largest first, for a report line. */
export function perOperation(delta: Record<string, number> | undefined, operations: number): string {
  const us = usPerOperation(delta, operations);
  if (!us) return 'CPU per operation: not measured (no /proc)';
  return Object.entries(us)
    .sort((a, b) => b[1] - a[1])
    .map(([group, v]) => `${group} ${v.toFixed(0)} µs`)
    .join(', ');
}
