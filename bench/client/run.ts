// Happy-path throughput of @surety/fetch against raw undici fetch, ky and got (retries on in each),
// on one local server, in one run, interleaved round by round so drift hits every contender alike.
//
//   npm run build && node --import tsx bench/client/run.ts [seconds-per-round] [rounds] [concurrency] [filter]
//
// Loopback only (127.0.0.1). Every loop is bounded in time and in count.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { createInterface } from 'node:readline';
import { createFetch } from '@surety/fetch';
import got from 'got';
import ky from 'ky';
import { Agent, fetch as undiciFetch } from 'undici';
import { emitResult } from '../lib/result.js';
import { TETHER_ARGS } from '../lib/tether.js';

const seconds = Number(process.argv[2] ?? 3);
const rounds = Number(process.argv[3] ?? 3);
const concurrency = Number(process.argv[4] ?? 32);
const only = process.argv[5] ? new RegExp(process.argv[5]) : undefined;
const MAX_REQUESTS_PER_ROUND = 1_000_000;

const origin = spawn(process.execPath, [...TETHER_ARGS, new URL('./server.mjs', import.meta.url).pathname], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
const port = await new Promise<number>((resolve) => {
  createInterface({ input: origin.stdout! }).once('line', (line) => resolve(Number(line)));
});
const url = `http://127.0.0.1:${port}/thing`;

// Each client gets its own pool of `concurrency` connections.
const undiciAgent = new Agent({ connections: concurrency });
const gotAgent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
// @surety/fetch with its own Agent, as most users will run it (it then times attempts without a signal).
const surety = createFetch();
const suretyAgent = new Agent({ connections: concurrency });
const suretyWithAgent = createFetch({ dispatcher: suretyAgent });
const suretyBare = createFetch({
  retryBudget: false,
  deadlineHeader: false,
  attemptHeader: false,
});
const gotClient = got.extend({
  agent: { http: gotAgent },
  retry: { limit: 3 },
});
const kyClient = ky.create({ retry: { limit: 3 } });

type Contender = [name: string, once: () => Promise<unknown>];
const all: Contender[] = [
  [
    'undici fetch (baseline)',
    async () => (await undiciFetch(url, { dispatcher: undiciAgent })).arrayBuffer(),
  ],
  [
    'undici fetch + 2 headers',
    async () => {
      const res = await undiciFetch(url, {
        dispatcher: undiciAgent,
        headers: [
          ['surety-attempt', '1'],
          ['surety-timeout-ms', '10000'],
        ],
      });
      return res.arrayBuffer();
    },
  ],
  [
    'undici fetch + a signal + 2 headers',
    async () => {
      // What @surety/fetch hands undici for each attempt: its own signal and the two upstream headers.
      const controller = new AbortController();
      const res = await undiciFetch(url, {
        dispatcher: undiciAgent,
        signal: controller.signal,
        headers: [
          ['surety-attempt', '1'],
          ['surety-timeout-ms', '10000'],
        ],
      });
      return res.arrayBuffer();
    },
  ],
  ['@surety/fetch (defaults)', async () => (await surety(url)).arrayBuffer()],
  ['@surety/fetch (own undici Agent passed in)', async () => (await suretyWithAgent(url)).arrayBuffer()],
  ['@surety/fetch (no budget, no headers)', async () => (await suretyBare(url)).arrayBuffer()],
  ['Node 20 global fetch', async () => (await fetch(url)).arrayBuffer()],
  ['ky (global fetch, retry 3)', async () => (await kyClient.get(url)).arrayBuffer()],
  ['got (keep-alive, retry 3)', async () => (await gotClient.get(url)).rawBody],
];

interface Sample {
  rps: number;
  /** Client-process CPU time (user + system) per request, in microseconds: less sensitive than req/s to
   * other work competing for the same cores. */
  cpuUs: number;
}

// The baseline always runs; a filter (5th argument, a regular expression) picks the others.
const contenders = all.filter(([name], i) => i === 0 || only === undefined || only.test(name));

async function measure(once: () => Promise<unknown>, ms: number): Promise<Sample> {
  let done = 0;
  const until = performance.now() + ms;
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until && done < MAX_REQUESTS_PER_ROUND) {
        await once();
        done++;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return {
    rps: done / ((performance.now() - started) / 1000),
    cpuUs: (used.user + used.system) / done,
  };
}

// Warm-up: JIT, connections.
for (const [, once] of contenders) await measure(once, 500);

const results = new Map<string, Sample[]>(contenders.map(([name]) => [name, []]));
for (let round = 0; round < rounds; round++) {
  for (const [name, once] of contenders) results.get(name)!.push(await measure(once, seconds * 1000));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const baseline = results.get(contenders[0]![0])!;
const baseRps = median(baseline.map((s) => s.rps));
const baseCpu = median(baseline.map((s) => s.cpuUs));
console.log(`node ${process.version}, ${rounds} rounds x ${seconds} s, concurrency ${concurrency}`);
console.log(
  '| client | req/s (median) | req/s per round | vs undici (req/s) | client CPU µs/req (median) | vs undici (CPU) |',
);
console.log('|---|---:|---|---:|---:|---:|');
for (const [name, samples] of results) {
  const rps = median(samples.map((s) => s.rps));
  const cpu = median(samples.map((s) => s.cpuUs));
  console.log(
    `| ${name} | ${Math.round(rps)} | ${samples.map((s) => Math.round(s.rps)).join(' / ')} | ${(rps / baseRps).toFixed(3)} | ${cpu.toFixed(1)} | ${(baseCpu / cpu).toFixed(3)} |`,
  );
}

const rpsOf = (name: string) => {
  const xs = results.get(name);
  return xs ? median(xs.map((s) => s.rps)) / baseRps : Number.NaN;
};
const cpuOf = (name: string) => {
  const xs = results.get(name);
  return xs ? baseCpu / median(xs.map((s) => s.cpuUs)) : Number.NaN;
};
const defaults = '@surety/fetch (defaults)';
emitResult({
  bench: 'client',
  metrics: [...results].flatMap(([name, samples]) => [
    { name: `${name} req/s`, value: median(samples.map((s) => s.rps)), unit: 'req/s' },
    { name: `${name} CPU`, value: median(samples.map((s) => s.cpuUs)), unit: 'µs/req' },
  ]),
  ratios: [
    {
      name: 'client.vs_fetch',
      value: rpsOf(defaults),
      target: 0.95,
      op: '>=',
      what: '@surety/fetch req/s ÷ undici fetch',
    },
    {
      name: 'client.vs_fetch_cpu',
      value: cpuOf(defaults),
      target: 0.95,
      op: '>=',
      what: 'undici fetch CPU/req ÷ @surety/fetch CPU/req',
    },
    {
      name: 'client.vs_ky',
      value: rpsOf(defaults) / rpsOf('ky (global fetch, retry 3)'),
      what: '@surety/fetch ÷ ky 1 (req/s)',
    },
    {
      name: 'client.vs_got',
      value: rpsOf(defaults) / rpsOf('got (keep-alive, retry 3)'),
      what: '@surety/fetch ÷ got 14 (req/s)',
    },
  ],
});

await Promise.all([undiciAgent.close(), suretyAgent.close(), surety.close(), suretyBare.close()]);
gotAgent.destroy();
origin.kill();
