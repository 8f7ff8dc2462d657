// Without a registered SDK the libraries' instrumentation is inert (issue 21): an SDK that exists
// but is not registered receives nothing, no traceparent goes out, no trace context is stored with
// an event, and log lines carry no trace fields.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { createFetch } from '@surety/fetch';
import { verifySync } from '@surety/webhook-verify';
import { DeliveryWorker, parseAllowList } from '@surety/webhooks';
import { startReceiver } from '@surety/webhooks/testing';
import { traceFields } from '../../src/log-trace.js';
import { auth, createTestApp, newKey, PAYMENT, type TestApp } from '../helpers.js';

// Made, never registered: what a library would reach if it used anything but the global API.
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

let t: TestApp;
let url: string;
before(async () => {
  t = await createTestApp();
  url = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => {
  await t.close();
  await provider.shutdown();
});

test('no SDK registered: nothing exported, no traceparent sent or stored, no trace fields in logs', async () => {
  // The client: a retried keyed call to a server that records what it was sent.
  const seen: IncomingHttpHeaders[] = [];
  const upstream = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(seen.length === 1 ? 503 : 200).end();
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const fetch = createFetch({ baseDelayMs: 1, maxDelayMs: 2 });
  const res = await fetch(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`, {
    method: 'POST',
    idempotencyKey: 'auto',
    body: '{}',
  });
  assert.equal(res.status, 200);
  await res.text();
  await new Promise((r) => upstream.close(r));
  assert.equal(seen.length, 2);
  for (const h of seen) assert.equal(h.traceparent, undefined);

  // The service: a keyed payment publishes payment.created; the worker delivers it.
  const rx = await startReceiver();
  await t.app.webhooks.createEndpoint(t.app.sql, {
    tenant: 'acme',
    url: rx.url,
    eventTypes: ['payment.created'],
  });
  const paid = await fetch(`${url}/v1/payments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': newKey(), ...auth('acme') },
    body: JSON.stringify(PAYMENT),
  });
  assert.equal(paid.status, 201);
  await paid.text();
  await fetch.close();
  const stored = await t.db.sql.query<{ trace_context: unknown }>(
    `select trace_context from "${t.db.schema}".webhook_events`,
  );
  assert.ok(stored.rows.length > 0);
  for (const row of stored.rows) assert.equal(row.trace_context, null);
  const worker = new DeliveryWorker({
    webhooks: t.app.webhooks,
    listen: false,
    guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
  });
  await worker.drain();
  await worker.stop();
  assert.equal(rx.received.length, 1);
  assert.equal(rx.received[0]!.headers.traceparent, undefined);
  await rx.close();

  assert.throws(() =>
    verifySync({ body: '{}', headers: {}, secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] }),
  );
  assert.deepEqual(traceFields(), {});
  await provider.forceFlush();
  assert.deepEqual(exporter.getFinishedSpans(), []);
});
