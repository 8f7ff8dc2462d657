/** The report as a table: one row per rule, its level, the verdict and what was seen. */
import type { ProbeReport } from './probe.js';

const MARK = { pass: 'pass', fail: 'FAIL', inconclusive: 'inconclusive', 'not-applicable': 'n/a' } as const;

export function formatTable(report: ProbeReport): string {
  const rows = report.results.map((r) => [r.id, r.level, MARK[r.verdict], r.detail]);
  const head = ['RULE', 'LEVEL', 'RESULT', 'DETAIL'];
  const width = [0, 1, 2].map((i) => Math.max(head[i]!.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i < 3 ? c.padEnd(width[i]!) : c))
      .join('  ')
      .trimEnd();
  const { counts } = report;
  const mustFailed = report.results.filter((r) => r.level === 'MUST' && r.verdict === 'fail').length;
  return [
    `${report.method} ${report.url}: ${report.requests} requests in ${report.durationMs} ms`,
    line(head),
    ...rows.map(line),
    `${counts.pass} pass, ${counts.fail} fail (${mustFailed} MUST), ${counts.inconclusive} inconclusive, ${counts['not-applicable']} n/a`,
  ].join('\n');
}
