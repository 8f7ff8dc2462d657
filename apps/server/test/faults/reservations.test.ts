// Reservation race under faults: many clients reserve the same SKU at once through the fault proxy,
// which drops a share of the answers, and retry with their automatic Idempotency-Keys. Stock must
// never go below zero, the units acknowledged (201) must be exactly the units taken from stock, and
// each logical reservation must exist at most once. Runs on PGlite and on PostgreSQL.
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

describe('reservation race under faults', () => {
  test('concurrent reservations with dropped answers and retries never oversell', async () => {
    const stock = size(100, 1000);
    const requests = size(150, 1500);
    const { random } = seeded('reservations');
    const sku = 'SKU-RACE';
    const put = await t.app.inject({
      method: 'PUT',
      url: `/v1/inventory/${sku}`,
      headers: { 'content-type': 'application/json', 'if-none-match': '*', ...auth('acme') },
      payload: { quantity: stock },
    });
    assert.equal(put.statusCode, 201, put.body);

    const port = (t.app.server.address() as { port: number }).port;
    const proxy = await startFaultProxy({ target: port, dropRate: 0.25, random });
    const client = faultClient();
    const quantities = Array.from({ length: requests }, () => 1 + Math.floor(random() * 3));
    try {
      const results = await pool(requests, 24, async (i) => {
        const res = await client(`${proxy.url}/v1/inventory/${sku}/reservations`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...auth('acme') },
          body: JSON.stringify({ quantity: quantities[i] }),
        });
        const body = (await res.json()) as { id?: string; code?: string; quantity?: number };
        return { status: res.status, id: body.id, code: body.code, quantity: body.quantity };
      });
      const unexpected = results.filter(
        (r) => !(r.status === 201 || (r.status === 409 && r.code === 'out_of_stock')),
      );
      assert.deepEqual(unexpected, [], 'every logical reservation ended with a 201 or out_of_stock');
      const acknowledged = results.filter((r) => r.status === 201);
      const acknowledgedUnits = acknowledged.reduce((s, r) => s + r.quantity!, 0);
      assert.equal(new Set(acknowledged.map((r) => r.id)).size, acknowledged.length);

      const left = Number(
        (
          await t.db.sql.query<{ q: string }>(
            `select quantity::text as q from "${t.db.schema}".inventory where tenant = 'acme' and sku = $1`,
            [sku],
          )
        ).rows[0]!.q,
      );
      const rows = (
        await t.db.sql.query<{ id: string; quantity: string }>(
          `select id, quantity::text from "${t.db.schema}".reservations where tenant = 'acme' and sku = $1`,
          [sku],
        )
      ).rows;
      const reservedUnits = rows.reduce((s, r) => s + Number(r.quantity), 0);
      const ids = new Set(rows.map((r) => r.id));
      const lost = acknowledged.filter((r) => !ids.has(r.id!)).length;
      const duplicated = rows.length - acknowledged.length;
      report({
        scenario: 'reservation race, answers dropped',
        operations: requests,
        faults: proxy.stats.dropped,
        lost,
        duplicated,
        notes: `stock ${stock}: ${acknowledged.length} reserved ${acknowledgedUnits} units, ${results.length - acknowledged.length} out of stock, ${left} left`,
      });
      assert.ok(left >= 0);
      assert.equal(reservedUnits + left, stock, 'units reserved plus units left equal the stock');
      assert.equal(acknowledgedUnits, reservedUnits, 'the 201s are exactly the units taken');
      assert.equal(lost, 0);
      assert.equal(duplicated, 0, 'no logical reservation was made twice');
      // The race was real: demand exceeded the stock, and the stock ran out (less than 3 units left).
      assert.ok(quantities.reduce((s, q) => s + q, 0) > stock);
      assert.ok(left < 3, `${left} left`);
      assert.ok(proxy.stats.dropped > 0);
    } finally {
      await client.close();
      await proxy.close();
    }
  });
});
