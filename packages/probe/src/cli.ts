/**
 * The `surety-probe` command (and `surety probe`). Exit codes: 0 no MUST failed (with --strict: no
 * rule failed), 1 a rule failed, 2 usage or input.
 */
import { parseArgs } from 'node:util';
import { type CliIo, stdio } from '@surety/core/node';
import { ProbeError } from './client.js';
import { formatTable } from './format.js';
import { type ProbeOptions, type ProbeReport, probe, type Suite } from './probe.js';

export type { CliIo };

export const PROBE_USAGE = `Usage: surety-probe <url> [--method POST] [--body JSON] [--header 'Name: value']... [--json]

Checks a running HTTP API against the Idempotency-Key draft and RFC 9110's preconditions, as a
client would see them. It sends real requests (creating what the operation creates): point it at
a test environment.
  --method        the operation's method                               default: POST
  --body          the request body; {{uuid}} becomes one UUID per run
  --alt-body      a second valid body, for the key-reuse rule          default: derived from --body
  --header        a header for every request (repeat it), e.g. 'Authorization: Bearer sk_test_…'
  --only          idempotency | preconditions                          default: by method
  --max-requests  the most requests sent                               default: 40
  --rate          the most requests a second                           default: 20
  --timeout       per request, in ms                                   default: 10000
  --strict        fail on a SHOULD too
  --json          print the report as JSON`;

function positive(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0)
    throw new ProbeError('SURETY_PROBE_INPUT', `--${name} must be a positive number`);
  return n;
}

/** Parses the arguments into probe options (throws ProbeError on bad input). */
export function parseProbeArgs(argv: string[]): { options: ProbeOptions; json: boolean; strict: boolean } {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      method: { type: 'string', default: 'POST' },
      body: { type: 'string' },
      'alt-body': { type: 'string' },
      header: { type: 'string', multiple: true, default: [] },
      only: { type: 'string' },
      'max-requests': { type: 'string' },
      rate: { type: 'string' },
      timeout: { type: 'string' },
      strict: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals.length !== 1) throw new ProbeError('SURETY_PROBE_INPUT', 'give one URL to probe');
  const headers: Record<string, string> = {};
  for (const h of values.header) {
    const colon = h.indexOf(':');
    if (colon < 1)
      throw new ProbeError('SURETY_PROBE_INPUT', `--header is 'Name: value', not ${JSON.stringify(h)}`);
    headers[h.slice(0, colon).trim()] = h.slice(colon + 1).trim();
  }
  const json = !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type');
  for (const [name, body] of [
    ['body', values.body],
    ['alt-body', values['alt-body']],
  ] as const) {
    if (body === undefined || !json) continue;
    try {
      JSON.parse(body.replaceAll('{{uuid}}', '0'));
    } catch {
      throw new ProbeError(
        'SURETY_PROBE_INPUT',
        `--${name} is not JSON (set a Content-Type header to send another type)`,
      );
    }
  }
  const only = values.only;
  if (only !== undefined && only !== 'idempotency' && only !== 'preconditions')
    throw new ProbeError('SURETY_PROBE_INPUT', '--only is idempotency or preconditions');
  const rate = positive('rate', values.rate);
  const maxRequests = positive('max-requests', values['max-requests']);
  const timeoutMs = positive('timeout', values.timeout);
  const options: ProbeOptions = {
    url: positionals[0]!,
    method: values.method,
    headers,
    ...(values.body !== undefined ? { body: values.body } : {}),
    ...(values['alt-body'] !== undefined ? { altBody: values['alt-body'] } : {}),
    ...(only ? { suites: [only as Suite] } : {}),
    ...(rate ? { minIntervalMs: 1000 / rate } : {}),
    ...(maxRequests ? { maxRequests: Math.floor(maxRequests) } : {}),
    ...(timeoutMs ? { timeoutMs } : {}),
  };
  return { options, json: values.json, strict: values.strict };
}

/** Runs the command; resolves to the exit code. */
export async function runProbeCli(argv: string[], io: CliIo = stdio): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(PROBE_USAGE);
    return 0;
  }
  let report: ProbeReport;
  let parsed: ReturnType<typeof parseProbeArgs>;
  try {
    parsed = parseProbeArgs(argv);
    report = await probe(parsed.options);
  } catch (e) {
    const usage = e instanceof ProbeError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    if (!usage) throw e;
    io.err(`surety-probe: ${(e as Error).message}\n\n${PROBE_USAGE}`);
    return 2;
  }
  io.out(parsed.json ? JSON.stringify(report, null, 2) : formatTable(report));
  if (!report.ok) return 1;
  return parsed.strict && report.counts.fail > 0 ? 1 : 0;
}
