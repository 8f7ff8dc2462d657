// The benchmarks `npm run bench` (bench/run.ts) runs, in order: each a script run as a child process,
// its arguments in quick and full mode, its runs and its time limit.

export interface Bench {
  name: string;
  title: string;
  file: string;
  args: string[];
  runs: number;
  /** Longest one run may take before it is killed. */
  timeoutMs: number;
  conditions?: boolean;
}

/** The benchmarks, with their quick (`--quick`) or full arguments and runs. */
export function benchesFor(quick: boolean): Bench[] {
  const q = (quickArgs: string[], fullArgs: string[]) => (quick ? quickArgs : fullArgs);
  const benches: Bench[] = [
    {
      name: 'idempotency',
      title: 'Idempotency: POST throughput with the layer on ÷ off, and the npm peer',
      file: 'idempotency/run.ts',
      args: q(['--quick', '--seconds', '2'], ['--seconds', '8', '--rounds', '2']),
      runs: quick ? 1 : 3,
      timeoutMs: 300_000,
    },
    {
      name: 'delivery',
      title: 'Delivery: deliveries/s against the ceiling, pg-boss and graphile-worker; latency against rate',
      file: 'delivery/run.ts',
      args: q(['--quick', '--events', '3000', '--latency-seconds', '2'], []),
      runs: quick ? 1 : 3,
      timeoutMs: 600_000,
    },
    {
      name: 'claim-loop',
      title:
        "The drain's database side: claim and completion without HTTP, against the claim before session 16",
      file: 'delivery/claim-loop.ts',
      args: q(['--quick'], []),
      runs: 1,
      timeoutMs: 300_000,
    },
    {
      name: 'publish',
      title: 'Publish: outbox writes per second, NOTIFY after COMMIT against NOTIFY in the transaction',
      file: 'delivery/publish.ts',
      args: q(['--quick'], []),
      runs: 1,
      timeoutMs: 120_000,
    },
    {
      name: 'client',
      title: 'Client: happy-path overhead against undici fetch, ky and got',
      file: 'client/run.ts',
      args: q(['1', '1', '32', 'defaults|global|ky|got'], ['3', '5', '32', 'defaults|global|ky|got']),
      runs: quick ? 1 : 3,
      timeoutMs: 300_000,
    },
    {
      name: 'client-budget',
      title: 'Client: extra traffic under a 100%-failing upstream, with and without the retry budget',
      file: 'client/budget.ts',
      args: q(['--quick'], []),
      runs: quick ? 1 : 3,
      timeoutMs: 120_000,
    },
    {
      name: 'verify',
      title: 'Verification: ops/s against standardwebhooks and stripe',
      file: 'verify/run.ts',
      args: q(['--seconds', '0.25', '--rounds', '1'], ['--seconds', '0.5', '--rounds', '3']),
      runs: quick ? 1 : 3,
      timeoutMs: 300_000,
      conditions: true,
    },
    {
      name: 'scale',
      title: 'Scale-out: 1, 2 and 4 API processes and worker processes on one PostgreSQL',
      file: 'scale/run.ts',
      args: q(['--quick'], []),
      runs: quick ? 1 : 2,
      timeoutMs: 900_000,
    },
    {
      name: 'fairness',
      title: "Fairness: another tenant's publish→delivery latency while a hostile tenant's 500 attempts hang",
      file: 'fairness/run.ts',
      args: q(['--quick'], []),
      runs: quick ? 1 : 3,
      timeoutMs: 300_000,
    },
    {
      name: 'growth',
      title: 'Growth: claim latency as the tables grow, purge while serving, and the query plans',
      file: 'growth/run.ts',
      args: q(['--quick'], []),
      runs: 1,
      timeoutMs: 1_800_000,
    },
  ];
  return benches;
}
