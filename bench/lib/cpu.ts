// CPU time per process group between two snapshots, read from /proc (Linux): where a benchmark's
// operations spend the machine's cores (this process, PostgreSQL's backends and background
// processes, the receiver, a server under load). On a machine where everything shares two cores the
// sum is what bounds throughput, so the reports show it next to the rates.
import { readdirSync, readFileSync } from 'node:fs';

/** Names a process by its command line, or undefined to leave it out. */
export type Classify = (cmdline: string, pid: number) => string | undefined;

export type CpuSnapshot = Map<number, { group: string; ms: number }> | undefined;

// USER_HZ: 100 on every Linux architecture Node runs on (sysconf(_SC_CLK_TCK) is not reachable
// from Node; the kernel fixes what /proc reports to 100 regardless of CONFIG_HZ on x86 and arm64).
const TICK_MS = 10;

/** CPU used so far by every process `classify` names; undefined where /proc is absent. */
export function cpuSnapshot(classify: Classify): CpuSnapshot {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return undefined;
  }
  const out = new Map<number, { group: string; ms: number }>();
  for (const p of pids) {
    try {
      const pid = Number(p);
      const group = classify(readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' '), pid);
      if (group === undefined) continue;
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      // Fields after the command (which may hold spaces) start at state; utime and stime are 14 and 15.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(pid, { group, ms: (Number(fields[11]) + Number(fields[12])) * TICK_MS });
    } catch {
      // the process exited between the listing and the read
    }
  }
  return out;
}

/**
 * CPU ms per group from `before` to `after`. A process that exited in between is lost (snapshot
 * before stopping what is measured); one that started in between counts from zero.
 */
export function cpuDelta(before: CpuSnapshot, after: CpuSnapshot): Record<string, number> | undefined {
  if (!before || !after) return undefined;
  const out: Record<string, number> = {};
  for (const [pid, { group, ms }] of after) {
    const d = ms - (before.get(pid)?.ms ?? 0);
    if (d > 0) out[group] = (out[group] ?? 0) + d;
  }
  return out;
}

/** PostgreSQL's processes (backends, WAL writer, checkpointer …) as one group. */
export const postgresProcess = (cmdline: string) =>
  cmdline.startsWith('postgres') || cmdline.includes('/bin/postgres') ? 'postgres' : undefined;

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
