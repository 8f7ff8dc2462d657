// What the OpenTelemetry instrumentation costs when no SDK is registered (issue 21), side by side in
// one process, rounds interleaved:
// - @surety/fetch and @surety/webhook-verify as they are ÷ the same packages' sources from the commit
//   before the instrumentation (extracted with `git archive` into bench/.tracing-base, removed after);
// - the webhook attempt's and the idempotency layer's span calls alone (they sit beside a network or
//   database round trip of 100s of µs), as they run with the API's no-op tracer.
//
//   node --conditions=@surety/source --import tsx bench/tracing/run.ts [--calls N] [--rounds N] [--base <commit>]
import { execSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { args, median } from '../lib/stats.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');
const a = args();
const calls = a.num('calls', a.quick ? 50_000 : 100_000);
const rounds = a.num('rounds', a.quick ? 5 : 9);
const git = (cmd: string) => execSync(`git ${cmd}`, { cwd: root, encoding: 'utf8' }).trim();
const first = git('log --diff-filter=A --format=%H -- packages/fetch/src/tracing.ts').split('\n').pop();
const base = a.str('base') ?? `${first}^`;
const baseDir = join(root, 'bench/.tracing-base');
rmSync(baseDir, { recursive: true, force: true });
mkdirSync(baseDir, { recursive: true });
execSync(`git archive ${base} packages/fetch/src packages/webhook-verify/src | tar -x -C ${baseDir}`, {
  cwd: root,
});

try {
  const load = (dir: string, file: string) => import(pathToFileURL(join(dir, file)).href);
  const headFetch = await load(root, 'packages/fetch/src/index.ts');
  const baseFetch = await load(baseDir, 'packages/fetch/src/index.ts');
  const headVerify = await load(root, 'packages/webhook-verify/src/index.ts');
  const baseVerify = await load(baseDir, 'packages/webhook-verify/src/index.ts');
  const tracing = await load(root, 'packages/webhooks/src/tracing.ts');
  const idem = await load(root, 'packages/idempotency/src/tracing.ts');
  await new Promise((r) => setTimeout(r, 50)); // webhook-verify's optional peer has loaded

  const cpuPerCall = async (once: () => unknown) => {
    for (let i = 0; i < 2000; i++) await once(); // warm
    const cpu = process.cpuUsage();
    for (let i = 0; i < calls; i++) await once();
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / calls;
  };
  const response = new Response(null);
  const transport = async () => response;
  const url = 'http://127.0.0.1:8080/thing';
  const fetches: Record<'head' | 'base', ReturnType<typeof headFetch.createFetch>> = {
    head: headFetch.createFetch({ transport }),
    base: baseFetch.createFetch({ transport }),
  };

  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const body = JSON.stringify({ id: 'evt_1', type: 'payment.created', data: { pad: 'x'.repeat(2000) } });
  const ts = Math.floor(Date.now() / 1000);
  const key = Buffer.from(secret.slice(6), 'base64');
  const sig = createHmac('sha256', key).update(`evt_1.${ts}.${body}`).digest('base64');
  const headers = {
    'webhook-id': 'evt_1',
    'webhook-timestamp': String(ts),
    'webhook-signature': `v1,${sig}`,
  };
  const verifiers = {
    head: headVerify.createVerifier({ secrets: [secret], now: () => ts * 1000 }),
    base: baseVerify.createVerifier({ secrets: [secret], now: () => ts * 1000 }),
  };

  const row = {
    id: '1',
    tenant: 't',
    endpoint_id: 'we_1',
    attempts: 2,
    event_id: 'evt_1',
    type: 'payment.created',
    url: 'https://hooks.example.com/in?token=x',
    trace_context: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
  };
  const answer = { status: 204, headers: {}, bodyExcerpt: '' };
  const post = async () => answer;
  const request = { headers: { 'content-type': 'application/json' }, body, timeoutMs: 1000 };
  const sent = {
    result: { kind: 'response', status: 204, retryAfter: undefined },
    excerpt: '',
    errorMessage: null,
  };
  const delivered = { kind: 'delivered', status: 204, errorCode: null, gone: false };

  const cases: Record<string, () => unknown> = {
    'fetch, before': () => fetches.base(url),
    'fetch, now': () => fetches.head(url),
    'verifySync 2 KB, before': () => verifiers.base.verifySync(body, headers),
    'verifySync 2 KB, now': () => verifiers.head.verifySync(body, headers),
    'webhook attempt: post alone': () => post(),
    'webhook attempt: post with its span calls': async () => {
      const span = tracing.sdkRegistered() ? new tracing.AttemptSpan(row) : undefined;
      await (span ? span.post(post, true) : post)(row.url, request);
      span?.end(sent, delivered);
    },
    'idempotency: outcome + claim/commit span calls': () => {
      const spans = idem.sdkRegistered() ? new idem.ExecutionSpans() : undefined;
      spans?.claimed('executed');
      spans?.committing();
      spans?.ended();
      idem.recordOutcome('executed', 'key-1');
    },
  };
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    for (const [name, once] of Object.entries(cases)) samples[name]!.push(await cpuPerCall(once));
  }
  console.log(
    `node ${process.version}, no SDK registered, ${rounds} rounds × ${calls} calls, base ${git(`rev-parse --short ${base}`)}\n`,
  );
  console.log('| case | µs CPU per call (median) | rounds (min–max) |\n| --- | ---: | ---: |');
  for (const [name, xs] of Object.entries(samples)) {
    console.log(
      `| ${name} | ${median(xs).toFixed(3)} | ${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)} |`,
    );
  }
  await fetches.head.close();
  await fetches.base.close();
} finally {
  rmSync(baseDir, { recursive: true, force: true });
}
