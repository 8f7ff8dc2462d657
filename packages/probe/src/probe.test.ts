// The probe against a small API that keeps every rule, and against one copy of it per broken rule
// (each caught); its budget, its rate and the URLs it refuses. Loopback only.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Break, startTestServer, type TestServer } from '../test/servers.js';
import { runProbeCli } from './cli.js';
import { type ProbeOptions, type ProbeReport, probe } from './probe.js';
import type { RuleId } from './rules.js';

const BODY = '{"amount":100,"currency":"EUR"}';

async function withServer<T>(
  options: Parameters<typeof startTestServer>[0],
  fn: (s: TestServer) => Promise<T>,
): Promise<T> {
  const server = await startTestServer(options);
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

const probePost = (s: TestServer, extra: Partial<ProbeOptions> = {}) =>
  probe({ url: `${s.url}/things`, body: BODY, minIntervalMs: 0, ...extra });

async function createThing(s: TestServer): Promise<string> {
  const r = await fetch(`${s.url}/things`, {
    method: 'POST',
    headers: { 'idempotency-key': crypto.randomUUID() },
    body: BODY,
  });
  return new URL(r.headers.get('location')!, s.url).href;
}

const verdicts = (report: ProbeReport) => Object.fromEntries(report.results.map((r) => [r.id, r.verdict]));

describe('surety probe against a conforming API', () => {
  test('a slow POST: every Idempotency-Key rule passes, 409 in flight included, and 304 on its Location', async () => {
    await withServer({ delayMs: 400 }, async (s) => {
      const report = await probePost(s);
      assert.deepEqual(
        report.results.filter((r) => r.verdict !== 'pass'),
        [],
      );
      assert.deepEqual(Object.keys(verdicts(report)), [
        'replay',
        'replay-header',
        'reuse-422',
        'in-flight-once',
        'in-flight-409',
        'missing-key-400',
        'key-length',
        'quoted-key',
        'etag-304',
      ]);
      assert.equal(report.ok, true);
      assert.equal(report.requests, s.log.length, 'the count is what the server saw');
    });
  });

  test('a fast POST: 409 in flight could not be provoked, and is inconclusive, not failed', async () => {
    await withServer({}, async (s) => {
      const report = await probePost(s);
      assert.equal(verdicts(report)['in-flight-409'], 'inconclusive');
      assert.match(
        report.results.find((r) => r.id === 'in-flight-409')!.detail,
        /too fast to be sure the duplicates arrived/,
      );
      assert.equal(report.counts.fail, 0);
    });
  });

  test('a fast POST on a loaded host (its first answer paused, duplicates queued): 409 in flight is not failed', async () => {
    // The baseline's first request paused 400 ms made a 1 ms operation look 400 ms long, and the
    // duplicates, held by the crowd before the handler, looked as if they had waited for it.
    await withServer({ firstPauseMs: 400, crowdPauseMs: 300 }, async (s) => {
      const report = await probePost(s);
      const row = report.results.find((r) => r.id === 'in-flight-409')!;
      assert.equal(row.verdict, 'inconclusive', row.detail);
      assert.equal(report.counts.fail, 0);
      assert.equal(report.requests, s.log.length, 'the count is what the server saw');
    });
  });

  for (const method of ['PUT', 'PATCH', 'DELETE']) {
    test(`${method} of a resource with an ETag: every precondition rule passes`, async () => {
      await withServer({}, async (s) => {
        const report = await probe({
          url: await createThing(s),
          method,
          body: '{"amount":1}',
          minIntervalMs: 0,
        });
        assert.deepEqual(verdicts(report), {
          'etag-304': 'pass',
          'stale-412': 'pass',
          'weak-412': 'pass',
          'current-proceeds': 'pass',
          'missing-428': 'pass',
        });
      });
    });
  }
});

const BROKEN: { break: Break; rule: RuleId; must: boolean; method?: string; delayMs?: number }[] = [
  { break: 'no-replay', rule: 'replay', must: true },
  { break: 'no-replay-header', rule: 'replay-header', must: false },
  { break: 'reuse-replays', rule: 'reuse-422', must: false },
  { break: 'in-flight-twice', rule: 'in-flight-once', must: true, delayMs: 300 },
  { break: 'in-flight-queues', rule: 'in-flight-409', must: false, delayMs: 400 },
  { break: 'no-retry-after', rule: 'in-flight-409', must: false, delayMs: 400 },
  { break: 'missing-key-422', rule: 'missing-key-400', must: false },
  { break: 'no-key-limit', rule: 'key-length', must: false },
  { break: 'quotes-literal', rule: 'quoted-key', must: true },
  { break: 'no-304', rule: 'etag-304', must: true, method: 'PUT' },
  { break: 'if-match-ignored', rule: 'stale-412', must: true, method: 'PUT' },
  { break: 'weak-matches', rule: 'weak-412', must: true, method: 'PATCH' },
  { break: 'always-412', rule: 'current-proceeds', must: true, method: 'PUT' },
  { break: 'missing-if-match-400', rule: 'missing-428', must: false, method: 'DELETE' },
];

describe('surety probe against APIs that each break one rule', () => {
  for (const b of BROKEN) {
    test(`${b.break}: ${b.rule} fails${b.must ? ' (a MUST: exit 1)' : ' (a SHOULD)'}`, async () => {
      await withServer({ break: b.break, ...(b.delayMs ? { delayMs: b.delayMs } : {}) }, async (s) => {
        const url = b.method ? await createThing(s) : `${s.url}/things`;
        const args = [url, '--method', b.method ?? 'POST', '--body', BODY, '--rate', '1000', '--json'];
        const out: string[] = [];
        const code = await runProbeCli(args, { out: (t) => out.push(t), err: (t) => out.push(t) });
        const report = JSON.parse(out.join('\n')) as ProbeReport;
        const row = report.results.find((r) => r.id === b.rule)!;
        assert.equal(row.verdict, 'fail', JSON.stringify(report.results, null, 2));
        assert.equal(row.level, b.must ? 'MUST' : 'SHOULD');
        assert.equal(code, report.ok ? 0 : 1);
        if (b.must) assert.equal(code, 1);
      });
    });
  }
});

describe('the probe bounds itself', () => {
  test('never sends more than --max-requests; what it could not run is inconclusive', async () => {
    await withServer({}, async (s) => {
      const report = await probePost(s, { maxRequests: 5 });
      assert.ok(s.log.length <= 5, `${s.log.length} requests`);
      assert.equal(report.requests, s.log.length);
      assert.ok(
        report.results.some((r) => r.verdict === 'inconclusive' && /budget \(5\) is spent/.test(r.detail)),
      );
    });
  });

  test('keeps the rate: requests outside the concurrent burst are at least the interval apart', async () => {
    await withServer({}, async (s) => {
      const report = await probePost(s, { minIntervalMs: 40 });
      // The client spaces request starts; arrivals jitter under load, so the test holds the span,
      // which jitter moves only at its two ends: (requests - 1 - 2 burst gaps) intervals at least.
      const span = s.log.at(-1)!.at - s.log[0]!.at;
      const minimum = (report.requests - 3) * 40 - 20;
      assert.ok(
        span >= minimum,
        `${report.requests} requests in ${Math.round(span)} ms (at least ${minimum})`,
      );
    });
  });

  test('refuses URLs that are not http(s), and bad input, with exit 2', async () => {
    await assert.rejects(probe({ url: 'file:///etc/passwd' }), { code: 'SURETY_PROBE_URL' });
    await assert.rejects(probe({ url: 'gopher://127.0.0.1/' }), { code: 'SURETY_PROBE_URL' });
    const err: string[] = [];
    const io = { out: () => {}, err: (t: string) => err.push(t) };
    assert.equal(await runProbeCli(['ftp://127.0.0.1/x'], io), 2);
    assert.equal(await runProbeCli(['http://127.0.0.1:9/x', '--body', '{nope'], io), 2);
    assert.equal(await runProbeCli(['http://127.0.0.1:9/x', '--header', 'no colon'], io), 2);
    assert.match(err.join('\n'), /refused: ftp:/);
  });

  test('the table names every rule with its level', async () => {
    await withServer({ delayMs: 300 }, async (s) => {
      const out: string[] = [];
      const code = await runProbeCli([`${s.url}/things`, '--body', BODY, '--rate', '1000'], {
        out: (t) => out.push(t),
        err: (t) => out.push(t),
      });
      const text = out.join('\n');
      assert.equal(code, 0);
      assert.match(text, /^RULE\s+LEVEL\s+RESULT\s+DETAIL$/m);
      assert.match(text, /^replay\s+MUST\s+pass\s+201 replayed byte for byte$/m);
      assert.match(text, /^in-flight-409\s+SHOULD\s+pass\s+409 with Retry-After: 1$/m);
      assert.match(text, /9 pass, 0 fail \(0 MUST\)/);
    });
  });
});
