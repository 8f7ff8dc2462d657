// Response lost after commit: clients using @surety/fetch with automatic Idempotency-Keys create
// payments through a TCP proxy that drops a share of the server's answers after the server committed
// and answered. Every logical request must end with its 201, and the database must hold exactly one
// payment per logical request. Runs on PGlite and on PostgreSQL; loopback only.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { auth, createTestApp, type TestApp } from '../helpers.js';
import { faultClient, pool, report, seeded, size, startFaultProxy } from './lib.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
});
after(() => t.close());

describe('response lost after commit', () => {
  test('every logical payment ends with one 201 and exactly one row, although answers were dropped', async () => {
    const n = size(500, 5000);
    const { random } = seeded('response-lost');
    const port = (t.app.server.address() as { port: number }).port;
    const proxy = await startFaultProxy({ target: port, dropRate: 0.2, random });
    let retries = 0;
    const client = faultClient({ onRetry: () => void retries++ });
    try {
      const results = await pool(n, 16, async (i) => {
        const res = await client(`${proxy.url}/v1/payments`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...auth('acme') },
          body: JSON.stringify({ amount: String(100 + i), currency: 'USD', customerId: `cus_lost_${i}` }),
        });
        const body = (await res.json()) as { id: string; customerId: string };
        return {
          status: res.status,
          id: body.id,
          customerId: body.customerId,
          replayed: res.headers.get('idempotent-replayed'),
        };
      });
      const statuses = results.map((r) => r.status);
      assert.deepEqual([...new Set(statuses)], [201], `statuses: ${statuses.filter((s) => s !== 201)}`);
      for (const [i, r] of results.entries()) assert.equal(r.customerId, `cus_lost_${i}`);
      const acknowledged = new Set(results.map((r) => r.id));
      assert.equal(acknowledged.size, n, 'one distinct payment per logical request');

      const rows = (
        await t.db.sql.query<{ id: string; customer_id: string }>(
          `select id, customer_id from "${t.db.schema}".payments where customer_id like 'cus_lost_%'`,
        )
      ).rows;
      const lost = [...acknowledged].filter((id) => !rows.some((r) => r.id === id)).length;
      const duplicated = rows.length - new Set(rows.map((r) => r.customer_id)).size;
      report({
        scenario: 'response lost after commit',
        operations: n,
        faults: proxy.stats.dropped,
        lost,
        duplicated,
        notes: `${retries} retries, ${results.filter((r) => r.replayed === 'true').length} answered by replay`,
      });
      assert.equal(rows.length, n, 'exactly n payments in the database');
      assert.equal(lost, 0);
      assert.equal(duplicated, 0);
      assert.ok(proxy.stats.dropped >= n / 10, `only ${proxy.stats.dropped} answers dropped`);
      assert.ok(retries >= proxy.stats.dropped, 'every dropped answer was retried');
    } finally {
      await client.close();
      await proxy.close();
    }
  });
});
