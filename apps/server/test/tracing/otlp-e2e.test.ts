// End to end (issue 21): `surety serve` started as the command starts it (src/entry.ts) with the
// standard OTEL_* variables, exporting OTLP/HTTP JSON to a collector this test runs on 127.0.0.1.
// A traced client's keyed payment gives the service's server span (with the idempotency outcome),
// the claim and commit spans in the client's trace; its webhook's attempts (failing twice, then
// delivered) are linked to that trace and the receiver gets their traceparent; log lines carry
// trace_id and span_id. Writes tools/trace-waterfall's input when TRACE_SVG_OUT is set.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import { startReceiver } from '@surety/webhooks/testing';
import { API_KEYS, auth, newKey, PAYMENT } from '../helpers.js';
import { type ServerProcess, spawnServer } from '../spawn.js';
import { type Collector, startCollector } from './otlp-collector.js';

let db: TestDatabase | undefined;
let dataDir: string | undefined;
let collector: Collector;
let server: ServerProcess;
let rx: Awaited<ReturnType<typeof startReceiver>>;

before(async () => {
  collector = await startCollector();
  rx = await startReceiver((_r, n, res) => void res.writeHead(n <= 2 ? 500 : 204).end());
  const env: Record<string, string> = {
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'surety-e2e',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    SURETY_WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
    SURETY_WEBHOOK_ALLOW_HTTP: 'true',
    SURETY_WEBHOOK_RETRY_SCHEDULE: '1s,1s',
  };
  let schema = 'surety';
  if (process.env.DATABASE_URL) {
    db = await createTestDatabase();
    schema = db.schema;
  } else {
    dataDir = mkdtempSync(join(tmpdir(), 'surety-otlp-'));
    env.SURETY_DATA_DIR = dataDir;
  }
  server = await spawnServer({ schema, apiKeys: API_KEYS, env, entry: 'entry' });
});
after(async () => {
  await server?.kill('SIGKILL');
  await rx?.close();
  await collector?.close();
  await db?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${server.url}${path}`, {
    ...init,
    headers: { 'content-type': 'application/json', ...auth('acme'), ...(init.headers ?? {}) },
  });

test('the endpoint setting traceContext through the service API: default true, false kept, bad input 400', async () => {
  const bad = await api('/v1/webhook-endpoints', {
    method: 'POST',
    body: JSON.stringify({ url: rx.url, eventTypes: ['*'], traceContext: 'yes' }),
  });
  assert.equal(bad.status, 400);
  const off = await api('/v1/webhook-endpoints', {
    method: 'POST',
    body: JSON.stringify({ url: `${rx.url}/off`, eventTypes: ['order.created'], traceContext: false }),
  });
  assert.equal(off.status, 201);
  const created = await off.json();
  assert.equal(created.traceContext, false);
  const on = await api(`/v1/webhook-endpoints/${created.id}`, {
    method: 'PATCH',
    headers: { 'if-match': off.headers.get('etag')! },
    body: JSON.stringify({ traceContext: true }),
  });
  assert.equal(on.status, 200);
  assert.equal((await on.json()).traceContext, true);
});

test('a traced payment: one trace through the service, attempts linked to it, OTLP/JSON to a collector', async () => {
  const ep = await api('/v1/webhook-endpoints', {
    method: 'POST',
    body: JSON.stringify({ url: `${rx.url}?token=not-for-traces`, eventTypes: ['payment.created'] }),
  });
  assert.equal(ep.status, 201);
  assert.equal((await ep.json()).traceContext, true);

  // The client is traced elsewhere: it sends its attempt's traceparent.
  const traceId = randomBytes(16).toString('hex');
  const clientSpanId = randomBytes(8).toString('hex');
  const key = newKey();
  for (let i = 0; i < 2; i++) {
    const res = await api('/v1/payments', {
      method: 'POST',
      headers: { 'idempotency-key': key, traceparent: `00-${traceId}-${clientSpanId}-01` },
      body: JSON.stringify(PAYMENT),
    });
    assert.equal(res.status, 201);
    await res.text();
  }
  await rx.waitFor(3);

  const attempts = (spans: typeof collector.spans) =>
    spans.filter((s) => s.scope === '@surety/webhooks' && s.links.some((l) => l.traceId === traceId));
  await collector.waitFor((spans) => attempts(spans).length >= 3);
  const spans = collector.spans;
  assert.equal(collector.rejected, 0);

  const inTrace = spans.filter((s) => s.traceId === traceId);
  // The service's own server spans (the in-process simulated provider's are in the trace too: the
  // charge is a call of the request).
  const servers = inTrace.filter((s) => s.kind === 2 && s.attributes['http.route'] === '/v1/payments');
  assert.equal(servers.length, 2);
  for (const s of servers) {
    assert.equal(s.service, 'surety-e2e', 'OTEL_SERVICE_NAME');
    assert.equal(s.parentSpanId, clientSpanId, "the client's traceparent was honoured");
    assert.equal(s.attributes['http.route'], '/v1/payments');
  }
  assert.deepEqual(servers.map((s) => s.attributes['surety.idempotency.outcome']).sort(), [
    'executed',
    'replayed',
  ]);
  // A phased request: one span per phase that ran (the replay ran none).
  for (const phase of ['created', 'charge', 'settled'])
    assert.equal(inTrace.filter((s) => s.name === `phase ${phase}`).length, 1, `phase ${phase}`);
  assert.ok(
    inTrace.some((s) => s.scope === '@fastify/otel'),
    "Fastify's spans from @fastify/otel",
  );

  const tries = attempts(spans).sort(
    (a, b) => Number(a.attributes['surety.webhook.attempt']) - Number(b.attributes['surety.webhook.attempt']),
  );
  assert.deepEqual(
    tries.map((a) => [a.attributes['http.response.status_code'], a.attributes['surety.webhook.outcome']]),
    [
      [500, 'retry'],
      [500, 'retry'],
      [204, 'delivered'],
    ],
  );
  const published = tries[0]!.links[0]!.spanId;
  assert.ok(
    inTrace.some((s) => s.spanId === published),
    'the link points at a span of the payment trace',
  );
  for (const [i, a] of tries.entries()) {
    assert.equal(rx.received[i]!.headers.traceparent, `00-${a.traceId}-${a.spanId}-01`);
    assert.ok(!String(a.attributes['url.full']).includes('?'), 'no query string');
  }
  const text = JSON.stringify(spans.map((s) => [s.name, s.attributes]));
  assert.ok(!text.includes(key), 'the idempotency key only hashed');
  assert.ok(!text.includes('not-for-traces'));

  // Log lines written inside the request carry its ids.
  const logged = server
    .output()
    .split('\n')
    .filter((line) => line.includes(`"trace_id":"${traceId}"`));
  assert.ok(logged.length > 0, 'log lines with trace_id');
  assert.ok(logged.every((line) => /"span_id":"[0-9a-f]{16}"/.test(line)));

  if (process.env.TRACE_SVG_OUT) {
    // The waterfall's input (scripts/trace-waterfall.mjs): this trace and the linked attempts.
    const keep = [...inTrace, ...tries].map((s) => ({
      ...s,
      startNs: String(s.startNs),
      endNs: String(s.endNs),
    }));
    writeFileSync(process.env.TRACE_SVG_OUT, JSON.stringify({ traceId, spans: keep }, null, 2));
  }
});
