// SURETY_WEBHOOK_CONCURRENCY: the service's worker holds at most that many attempts in flight
// (bench/scale sets it to measure scale-out below the machine's cores). The receiver answers each
// request 50 ms after it arrived and records how many it held at once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startReceiver } from '@surety/webhooks/testing';
import { loadConfig } from '../src/config.js';
import { startWorker } from '../src/server.js';
import { serviceRegistry } from '../src/service-events.js';
import { API_KEYS, createTestApp, type TestApp } from './helpers.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const sample = structuredClone(serviceRegistry().get('order.created')!.sample) as Record<string, unknown>;
const quiet = { info: () => {}, warn: () => {} };

test('SURETY_WEBHOOK_CONCURRENCY bounds the attempts one worker has in flight', async () => {
  let open = 0;
  let most = 0;
  const rx = await startReceiver((_r, _n, res) => {
    open++;
    most = Math.max(most, open);
    setTimeout(() => {
      open--;
      res.writeHead(204).end();
    }, 50);
  });
  try {
    const config = loadConfig({
      SURETY_API_KEYS: API_KEYS,
      SURETY_WEBHOOK_CONCURRENCY: '2',
      SURETY_WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
      SURETY_WEBHOOK_ALLOW_HTTP: 'true',
    });
    assert.equal(config.webhookConcurrency, 2);
    assert.equal(loadConfig({ SURETY_API_KEYS: API_KEYS }).webhookConcurrency, 64);
    const { webhooks } = t.app;
    await webhooks.createEndpoint(t.db.sql, { tenant: 'acme', url: rx.url, eventTypes: ['*'] });
    await t.db.sql.transaction(async (tx) => {
      for (let i = 0; i < 6; i++)
        await webhooks.publish(tx, { tenant: 'acme', type: 'order.created', data: sample });
    });
    const running = startWorker(webhooks, config, quiet);
    await running.worker.start();
    try {
      await rx.waitFor(6, 20_000);
    } finally {
      await running.stop();
    }
    assert.equal(most, 2, 'attempts in flight at once');
  } finally {
    await rx.close();
  }
});

test('SURETY_WEBHOOK_CONCURRENCY out of range refuses to start', () => {
  for (const bad of ['0', '-1', '1.5', 'many', '10001'])
    assert.throws(() => loadConfig({ SURETY_API_KEYS: API_KEYS, SURETY_WEBHOOK_CONCURRENCY: bad }), {
      code: 'SURETY_CONFIG',
    });
});
