/**
 * The `surety-lint` command (and `surety lint`): lints one file or http(s) URL with the ruleset.
 * Exit codes: 0 clean (or only below --fail-on), 1 findings at or above --fail-on, 2 usage or input.
 */
import { parseArgs } from 'node:util';
import { type CliIo, stdio } from '@surety/core/node';
import { type Finding, LintInputError, type LintReport, lint, type RefPolicy } from './lint.js';

export type { CliIo };

export const LINT_USAGE = `Usage: surety-lint <file or URL> [--json] [--refs none|files|remote] [--fail-on error|warn]

Lints an OpenAPI 3.x document (JSON or YAML) with the Surety reliability ruleset.
  --json      print the report as JSON
  --refs      which $refs to follow: none (only inside the document; the default for a URL),
              files (also files under the document's folder; the default for a file),
              remote (also http(s): only for a document you trust)
  --fail-on   the lowest severity that fails (exit 1)   default: error
Rules: https://github.com/surety-dev/surety/blob/main/docs/contracts.md`;

const RANK = { error: 0, warn: 1, info: 2, hint: 3 } as const;

/** The report as text, one line per finding with its docs link. */
export function formatReport(report: LintReport): string {
  const lines = [report.source];
  const width = Math.max(0, ...report.findings.map((f) => f.rule.length));
  for (const f of report.findings) {
    lines.push(
      `  ${`${f.line}:${f.column}`.padEnd(9)} ${f.severity.padEnd(5)}  ${f.rule.padEnd(width)}  ${f.message}`,
    );
    if (f.documentationUrl) lines.push(`  ${' '.repeat(9 + 7 + 2 + width)}  ${f.documentationUrl}`);
  }
  const others = report.findings.length - report.errors - report.warnings;
  lines.push(
    `${report.errors} error${report.errors === 1 ? '' : 's'}, ${report.warnings} warning${report.warnings === 1 ? '' : 's'}${others ? `, ${others} other` : ''}`,
  );
  return lines.join('\n');
}

/** Runs the command; resolves to the exit code. */
export async function runLintCli(argv: string[], io: CliIo = stdio): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (e) {
    io.err(`surety-lint: ${(e as Error).message}\n\n${LINT_USAGE}`);
    return 2;
  }
  if (parsed.help) {
    io.out(LINT_USAGE);
    return 0;
  }
  let report: LintReport;
  try {
    report = await lint(parsed.target, parsed.refs ? { refs: parsed.refs } : {});
  } catch (e) {
    if (e instanceof LintInputError) {
      io.err(`surety-lint: ${e.message}`);
      return 2;
    }
    throw e;
  }
  io.out(parsed.json ? JSON.stringify(report, null, 2) : formatReport(report));
  const failing = (f: Finding) => RANK[f.severity] <= RANK[parsed.failOn];
  return report.findings.some(failing) ? 1 : 0;
}

function parse(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      refs: { type: 'string' },
      'fail-on': { type: 'string', default: 'error' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return { help: true, target: '', json: false, refs: undefined, failOn: 'error' as const };
  if (positionals.length !== 1) throw new Error('give one file or URL to lint');
  const refs = values.refs;
  if (refs !== undefined && refs !== 'none' && refs !== 'files' && refs !== 'remote')
    throw new Error('--refs is none, files or remote');
  const failOn = values['fail-on'];
  if (failOn !== 'error' && failOn !== 'warn') throw new Error('--fail-on is error or warn');
  return {
    help: false,
    target: positionals[0]!,
    json: values.json,
    refs: refs as RefPolicy | undefined,
    failOn: failOn as 'error' | 'warn',
  };
}
