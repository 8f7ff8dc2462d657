// A webhook's attempts in the trace of the request that published it (issue 21): the publisher's
// trace context is stored with the event, each attempt is a CLIENT span of its own trace LINKED to
// it (the third at +6 h on the injected clock), the receiver sees the attempt's traceparent, an
// endpoint with traceContext: false sends none; the receiver side's verify and inbox spans.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { context, SpanKind, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import { verifySync } from '@surety/webhook-verify';
import { createInbox } from '@surety/webhook-verify/inbox';
import { DeliveryWorker, parseAllowList, Webhooks } from '@surety/webhooks';
import { startReceiver } from '@surety/webhooks/testing';
import { attributeText, parentOf, registerTestSdk, scopeOf } from './sdk.js';

const { exporter, provider } = await registerTestSdk();
const tracer = trace.getTracer('test');

let db: TestDatabase;
let clock = Date.parse('2026-06-01T00:00:00Z');
let webhooks: Webhooks;
const closers: (() => Promise<unknown>)[] = [];

before(async () => {
  db = await createTestDatabase();
  webhooks = new Webhooks({
    sql: db.sql,
    schema: db.schema,
    allowHttp: true,
    allowList: parseAllowList('127.0.0.1/32'),
    now: () => clock,
  });
  await webhooks.migrate();
});
after(async () => {
  for (const close of closers.reverse()) await close();
  await db.close();
  await provider.shutdown();
});

function worker() {
  const w = new DeliveryWorker({
    webhooks,
    listen: false,
    random: () => 0,
    timeoutMs: 2000,
    guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
  });
  closers.push(() => w.stop());
  return w;
}

/** Publishes inside a SERVER span standing for the payment request; returns that span's context. */
async function publishInRequest(tenant: string) {
  const span = tracer.startSpan('POST /v1/payments', { kind: SpanKind.SERVER });
  await context.with(trace.setSpan(context.active(), span), () =>
    db.sql.transaction((tx) =>
      webhooks.publish(tx, {
        tenant,
        type: 'payment.created',
        data: { id: 'pay_1', amount: 'body-marker-42' },
      }),
    ),
  );
  span.end();
  return span.spanContext();
}

const attemptSpans = (spans: ReadableSpan[]) =>
  spans
    .filter((s) => scopeOf(s) === '@surety/webhooks')
    .sort(
      (a, b) =>
        Number(a.attributes['surety.webhook.attempt']) - Number(b.attributes['surety.webhook.attempt']),
    );

let secret: string;
let received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
let spans: ReadableSpan[] = [];

test('failing twice then succeeding: three attempt spans linked to the publishing trace, traceparent sent', async () => {
  exporter.reset();
  const rx = await startReceiver((_r, n, res) => void res.writeHead(n <= 2 ? 500 : 204).end());
  closers.push(() => rx.close());
  const created = await webhooks.createEndpoint(db.sql, {
    tenant: 'acme',
    url: `${rx.url}?token=query-secret-0042`,
    eventTypes: ['*'],
    retrySchedule: [5, 21_600],
  });
  secret = created.secret;
  assert.equal(created.endpoint.traceContext, true, 'on by default');
  const published = await publishInRequest('acme');
  const w = worker();
  await w.drain();
  clock += 5_001;
  await w.drain();
  clock += 21_600_001; // the third attempt, six hours later
  await w.drain();
  assert.equal(rx.received.length, 3);
  received = rx.received;
  await provider.forceFlush();
  spans = exporter.getFinishedSpans();

  const attempts = attemptSpans(spans);
  assert.equal(attempts.length, 3);
  assert.deepEqual(
    attempts.map((a) => [a.attributes['surety.webhook.attempt'], a.attributes['http.response.status_code']]),
    [
      [1, 500],
      [2, 500],
      [3, 204],
    ],
  );
  assert.deepEqual(
    attempts.map((a) => a.attributes['surety.webhook.outcome']),
    ['retry', 'retry', 'delivered'],
  );
  for (const [i, a] of attempts.entries()) {
    assert.equal(a.kind, SpanKind.CLIENT);
    assert.equal(parentOf(a), undefined, 'each attempt is the root of its own trace');
    assert.equal(a.links.length, 1);
    assert.equal(a.links[0]!.context.traceId, published.traceId, 'linked to the payment trace');
    assert.equal(a.links[0]!.context.spanId, published.spanId);
    assert.equal(a.attributes['surety.webhook.endpoint_id'], created.endpoint.id);
    assert.equal(a.attributes['surety.webhook.event_type'], 'payment.created');
    const sc = a.spanContext();
    assert.equal(rx.received[i]!.headers.traceparent, `00-${sc.traceId}-${sc.spanId}-01`);
  }
});

test('a webhook URL reaches spans without its query string', () => {
  const attempts = attemptSpans(spans);
  for (const a of attempts) {
    assert.equal(a.attributes['url.full'], `http://127.0.0.1:${a.attributes['server.port']}/hooks`);
  }
  assert.ok(!attributeText(spans).includes('query-secret-0042'));
});

test('no webhook body, signature or secret reaches a span', () => {
  const text = attributeText(spans);
  assert.ok(!text.includes('body-marker-42'), 'the payload');
  assert.ok(!text.includes(secret), 'the signing secret');
  const signature = String(received[0]!.headers['webhook-signature']);
  assert.ok(!text.includes(signature.split('v1=')[1] ?? signature), 'the signature');
  for (const s of spans) {
    for (const name of Object.keys(s.attributes)) {
      assert.ok(!name.startsWith('http.request.header.'), name);
    }
  }
});

test('traceContext: false sends no traceparent; the attempt is still traced', async () => {
  exporter.reset();
  const rx = await startReceiver();
  closers.push(() => rx.close());
  const { endpoint } = await webhooks.createEndpoint(db.sql, {
    tenant: 'globex',
    url: rx.url,
    eventTypes: ['*'],
  });
  const off = await webhooks.updateEndpoint(db.sql, {
    tenant: 'globex',
    id: endpoint.id,
    ifVersion: endpoint.version,
    patch: { traceContext: false },
  });
  assert.equal(off?.traceContext, false);
  await publishInRequest('globex');
  await worker().drain();
  assert.equal(rx.received.length, 1);
  assert.equal(rx.received[0]!.headers.traceparent, undefined);
  assert.equal(rx.received[0]!.headers.tracestate, undefined);
  await provider.forceFlush();
  const attempts = attemptSpans(exporter.getFinishedSpans());
  assert.equal(attempts.length, 1);
  assert.equal(attempts[0]!.attributes['surety.webhook.outcome'], 'delivered');
});

test('the receiver: a span per verification, and the inbox decision', async () => {
  exporter.reset();
  const first = received[2]!;
  const headers = first.headers as Record<string, string>;
  const now = () => clock; // the injected clock signed it
  verifySync({ body: first.body, headers, secrets: [secret], now });
  assert.throws(() =>
    verifySync({ body: first.body, headers, secrets: ['whsec_d3Jvbmctc2VjcmV0LXdyb25nLXNlY3JldA=='], now }),
  );
  const inbox = createInbox({ schema: db.schema, consumer: 'billing' });
  await inbox.migrate(db.sql);
  const id = JSON.parse(first.body).id as string;
  for (let i = 0; i < 2; i++) {
    await db.sql.transaction((tx) => inbox.receive(tx, { id }, async () => 'applied'));
  }
  await provider.forceFlush();
  const out = exporter.getFinishedSpans().filter((s) => scopeOf(s) === '@surety/webhook-verify');
  const verifies = out.filter((s) => s.name === 'webhook verify');
  assert.deepEqual(
    verifies.map((s) => s.attributes['surety.webhook.verified']),
    [true, false],
  );
  assert.equal(verifies[0]!.attributes['surety.webhook.event_id'], id);
  assert.equal(verifies[1]!.attributes['error.type'], 'SURETY_WEBHOOK_NO_MATCHING_SIGNATURE');
  const inboxSpans = out.filter((s) => s.name === 'insert webhook_inbox');
  assert.deepEqual(
    inboxSpans.map((s) => s.attributes['surety.inbox.decision']),
    ['new', 'duplicate'],
  );
  assert.ok(!attributeText(out).includes(secret));
});
