// CPU profiles of the processes a benchmark starts (the service's worker, the idempotency server):
// when BENCH_CPU_PROF_DIR is set, `profileArgs(role)` adds node's --cpu-prof to that process, and
// `summariseProfiles` turns the .cpuprofile files into the report's tables: the top functions by
// self time, and self time rolled up by package (which part of the stack the CPU goes to).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** node arguments that write a CPU profile of this process under BENCH_CPU_PROF_DIR/<role>. */
export function profileArgs(role: string): string[] {
  const dir = process.env.BENCH_CPU_PROF_DIR;
  return dir ? ['--cpu-prof', '--cpu-prof-dir', join(dir, role)] : [];
}

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  role: string;
  files: number;
  /** CPU time sampled, idle excluded, ms. */
  totalMs: number;
  top: { name: string; where: string; selfMs: number; share: number }[];
  byPackage: { name: string; selfMs: number; share: number }[];
}

const root = new URL('../../', import.meta.url).pathname;

/** A short place for a script URL: the package it belongs to, then the file and line. */
export function placeOf(url: string, line: number): { where: string; pkg: string } {
  if (!url) return { where: '', pkg: '(native or VM)' };
  if (url.startsWith('node:')) return { where: `${url}:${line + 1}`, pkg: 'node (internals)' };
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = path.slice(nm + '/node_modules/'.length);
    const parts = rest.split('/');
    const pkg = parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
    if (pkg.startsWith('@surety/')) return { where: `${rest}:${line + 1}`, pkg };
    return { where: `${rest}:${line + 1}`, pkg };
  }
  const rel = path.startsWith(root) ? path.slice(root.length) : path;
  const m = /^(packages\/[^/]+|apps\/[^/]+|bench)\//.exec(rel);
  const pkg = m
    ? m[1]!.startsWith('packages/')
      ? `@surety/${m[1]!.slice('packages/'.length)}`
      : m[1]!
    : rel;
  return { where: `${rel}:${line + 1}`, pkg };
}

/**
 * Self time per profile node, in µs: each sample is charged the time until the next one. Samples in
 * the first `skipUs` of the profile (start-up: module loading, compilation, warm-up) are left out.
 */
function selfTimes(p: CpuProfile, skipUs: number): Map<number, number> {
  const out = new Map<number, number>();
  const n = p.samples.length;
  const mean = n > 1 ? p.timeDeltas.slice(1).reduce((a, b) => a + b, 0) / (n - 1) : 0;
  let at = 0;
  for (let i = 0; i < n; i++) {
    at += p.timeDeltas[i]!;
    if (at < skipUs) continue;
    const dt = i + 1 < n ? p.timeDeltas[i + 1]! : mean;
    const id = p.samples[i]!;
    out.set(id, (out.get(id) ?? 0) + Math.max(0, dt));
  }
  return out;
}

/**
 * Summarises the main-thread profiles under `dir/role` (node names them CPU.<date>.<time>.<pid>.<thread>.<n>;
 * thread 0 is the main thread, others are loader-hook threads), leaving out the first `skipMs` of each.
 */
export function summariseProfiles(
  dir: string,
  role: string,
  topN = 15,
  skipMs = 3000,
): ProfileSummary | undefined {
  const at = join(dir, role);
  if (!existsSync(at)) return undefined;
  const files = readdirSync(at).filter((f) => /\.0\.\d+\.cpuprofile$/.test(f));
  if (files.length === 0) return undefined;
  const byFn = new Map<string, { name: string; where: string; us: number }>();
  const byPkg = new Map<string, number>();
  let total = 0;
  for (const file of files) {
    const p = JSON.parse(readFileSync(join(at, file), 'utf8')) as CpuProfile;
    const nodes = new Map(p.nodes.map((nd) => [nd.id, nd]));
    for (const [id, us] of selfTimes(p, skipMs * 1000)) {
      const frame = nodes.get(id)?.callFrame;
      if (!frame || frame.functionName === '(idle)') continue;
      total += us;
      const special = /^\(.*\)$/.test(frame.functionName) && !frame.url;
      const { where, pkg } = special
        ? { where: '', pkg: frame.functionName }
        : placeOf(frame.url, frame.lineNumber);
      const name = frame.functionName || '(anonymous)';
      const key = `${name} ${where}`;
      const e = byFn.get(key) ?? { name, where, us: 0 };
      e.us += us;
      byFn.set(key, e);
      byPkg.set(pkg, (byPkg.get(pkg) ?? 0) + us);
    }
  }
  const share = (us: number) => (total > 0 ? us / total : 0);
  return {
    role,
    files: files.length,
    totalMs: total / 1000,
    top: [...byFn.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, topN)
      .map((e) => ({ name: e.name, where: e.where, selfMs: e.us / 1000, share: share(e.us) })),
    byPackage: [...byPkg.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([name, us]) => ({ name, selfMs: us / 1000, share: share(us) })),
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

export function profileMarkdown(s: ProfileSummary, title: string): string {
  const lines = [
    `### ${title}`,
    '',
    `${s.files} profile${s.files === 1 ? '' : 's'} (main thread), ${s.totalMs.toFixed(0)} ms of CPU sampled after the first 3 s (start-up) and idle excluded.`,
    '',
    '| self time by package | ms | share |',
    '|---|---:|---:|',
    ...s.byPackage.map((r) => `| ${r.name} | ${r.selfMs.toFixed(0)} | ${pct(r.share)} |`),
    '',
    '| top functions by self time | where | ms | share |',
    '|---|---|---:|---:|',
    ...s.top.map(
      (r) =>
        `| \`${r.name.replace(/\|/g, '\\|')}\` | ${r.where.replace(/\|/g, '\\|')} | ${r.selfMs.toFixed(0)} | ${pct(r.share)} |`,
    ),
    '',
  ];
  return lines.join('\n');
}
