// One trace from the client's first attempt to the handler's answer (issue 21): a keyed payment sent
// by @surety/fetch through a proxy on 127.0.0.1 that drops the first two responses after the
// service has committed them. The SDK is the service's (in-memory exporter); the service listens
// for real, so the HTTP server spans come from @opentelemetry/instrumentation-http.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { attributeText, parentOf, registerTestSdk, scopeOf } from './sdk.js';

const { exporter, provider } = await registerTestSdk();
// Loaded only now, after the SDK: Fastify's require of node:http is what the instrumentation patches.
const { createTestApp, auth } = await import('../helpers.js');
const { createFetch } = await import('@surety/fetch');

type App = Awaited<ReturnType<typeof createTestApp>>;
let t: App;
let appUrl: URL;
let proxy: Server;
let proxyPort: number;
let drops = 0;
const sockets = new Set<Socket>();

/** Forwards each connection to the app; while `drops` > 0, cuts a connection at the response's first byte. */
function startProxy(): Promise<void> {
  proxy = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    const upstream = connect(Number(appUrl.port), '127.0.0.1');
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    const drop = drops > 0;
    if (drop) drops--;
    client.pipe(upstream);
    upstream.on('data', (chunk) => {
      if (drop) {
        // The service committed and answered; the client never hears it.
        client.destroy();
        upstream.destroy();
      } else client.write(chunk);
    });
    upstream.on('end', () => client.end());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  return new Promise((resolve) =>
    proxy.listen(0, '127.0.0.1', () => {
      proxyPort = (proxy.address() as AddressInfo).port;
      resolve();
    }),
  );
}

before(async () => {
  t = await createTestApp();
  appUrl = new URL(await t.app.listen({ port: 0, host: '127.0.0.1' }));
  await startProxy();
});
after(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => proxy.close(r));
  await t.close();
  await provider.shutdown();
});

const KEY = 'pay-key-7f3a-secret-looking-0001';
const BODY = { amount: '123456', currency: 'EUR', customerId: 'cus_trace_body_marker' };

let spans: ReadableSpan[] = [];
let callSpan: ReadableSpan;

test('a keyed payment retried through a dropping proxy is one trace: 3 client attempts, 1 executed, 2 replayed', async () => {
  exporter.reset();
  drops = 2;
  const fetch = createFetch({ baseDelayMs: 5, maxDelayMs: 20, maxAttempts: 4 });
  const res = await fetch(`http://127.0.0.1:${proxyPort}/v1/payments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': KEY, ...auth('acme') },
    body: JSON.stringify(BODY),
  });
  assert.equal(res.status, 201);
  assert.equal(res.headers.get('idempotent-replayed'), 'true');
  await res.text();
  await fetch.close();
  await provider.forceFlush();
  spans = exporter.getFinishedSpans();

  if (process.env.TRACE_DEBUG)
    for (const s of spans) console.log(scopeOf(s), s.name, s.kind, s.duration, JSON.stringify(s.attributes));
  // The client's call: the root span (the service's call to the payment provider is a fetch call too).
  callSpan = spans.find(
    (s) =>
      scopeOf(s) === '@surety/fetch' &&
      s.kind === SpanKind.INTERNAL &&
      String(s.attributes['url.full']).endsWith('/v1/payments'),
  )!;
  assert.ok(callSpan, 'the logical call span');
  const traceId = callSpan.spanContext().traceId;
  const inTrace = spans.filter((s) => s.spanContext().traceId === traceId);
  assert.equal(inTrace.length, spans.length, 'every span of the exchange is in the one trace');

  const attempts = inTrace
    .filter(
      (s) =>
        scopeOf(s) === '@surety/fetch' &&
        s.kind === SpanKind.CLIENT &&
        parentOf(s) === callSpan.spanContext().spanId,
    )
    .sort(
      (a, b) => Number(a.attributes['surety.fetch.attempt']) - Number(b.attributes['surety.fetch.attempt']),
    );
  assert.deepEqual(
    attempts.map((a) => a.attributes['surety.fetch.attempt']),
    [1, 2, 3],
  );
  for (const a of attempts) assert.equal(parentOf(a), callSpan.spanContext().spanId);
  assert.equal(callSpan.attributes['surety.fetch.attempts'], 3);
  assert.equal(callSpan.attributes['http.response.status_code'], 201);
  // Attempts 1 and 2 lost their answers; 2 and 3 carry why they were sent and how long the client waited.
  assert.ok(attempts[0]!.attributes['error.type'], 'the dropped attempt has an error type');
  assert.equal(attempts[1]!.attributes['http.request.resend_count'], 1);
  assert.equal(typeof attempts[1]!.attributes['surety.fetch.retry.reason'], 'string');
  assert.equal(typeof attempts[1]!.attributes['surety.fetch.retry.backoff_ms'], 'number');
  assert.equal(attempts[2]!.attributes['http.response.status_code'], 201);

  const servers = inTrace.filter(
    (s) => s.kind === SpanKind.SERVER && s.attributes['http.route'] === '/v1/payments',
  );
  assert.equal(servers.length, 3, 'each attempt reached the service');
  const outcomes = servers.map((s) => s.attributes['surety.idempotency.outcome']).sort();
  assert.deepEqual(outcomes, ['executed', 'replayed', 'replayed']);
  // Each server span is the child of the attempt that reached it: traceparent went on every attempt.
  const attemptIds = new Set(attempts.map((a) => a.spanContext().spanId));
  for (const s of servers) assert.ok(attemptIds.has(parentOf(s)!), 'server span under a client attempt');
  for (const s of servers) assert.equal(s.attributes['http.route'], '/v1/payments');

  const db = inTrace.filter((s) => scopeOf(s) === '@surety/idempotency');
  // A phased request (issue 32): each phase ran once, in the one execution; the replays ran none.
  assert.deepEqual(
    db.map((s) => s.name),
    ['phase created', 'phase charge', 'phase settled'],
    'one span per phase, once',
  );
});

test('the idempotency key is only in spans hashed', () => {
  const text = attributeText(spans);
  assert.ok(!text.includes(KEY), 'the raw key is in no span');
  const hashed = createHash('sha256').update(KEY).digest('hex').slice(0, 16);
  assert.equal(callSpan.attributes['surety.idempotency_key.hash'], hashed);
  const servers = spans.filter(
    (s) => s.kind === SpanKind.SERVER && s.attributes['http.route'] === '/v1/payments',
  );
  assert.equal(servers.length, 3);
  for (const s of servers) assert.equal(s.attributes['surety.idempotency_key.hash'], hashed);
});

test('no body and no request header reaches a span: the API key and the payment stay out', () => {
  const text = attributeText(spans);
  assert.ok(!text.includes(BODY.customerId), 'request body');
  assert.ok(!text.includes('123456'), 'request body');
  assert.ok(!text.includes(auth('acme').authorization.slice(7)), 'the API key');
  assert.ok(!/"pay_[0-9A-Za-z]+/.test(text), 'the response body (the payment id)');
  for (const s of spans) {
    for (const name of Object.keys(s.attributes)) {
      assert.ok(!name.startsWith('http.request.header.'), `request header attribute ${name}`);
      if (name.startsWith('http.response.header.')) {
        assert.ok(
          ['http.response.header.content-type', 'http.response.header.retry-after'].includes(name),
          `response header outside the allow-list: ${name}`,
        );
      }
    }
  }
});
