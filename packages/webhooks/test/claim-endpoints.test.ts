// The claim's take sends each endpoint's columns once per claim (issue 35): its URL, secrets, headers,
// kind, destination, credentials and authentication on the first row of that endpoint, nothing on the
// others, which the worker fills from that row. Every row it hands on still carries its own
// endpoint's settings, whatever the order the rows of several endpoints come back in.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { claimOnce, pickParams, webhooksInternals } from '../src/testing.js';
import { useEngine } from './fixture.js';

const fx = useEngine({ tenantPrefix: 'cep' });
let clock = Date.now();

describe("the take's endpoint columns", () => {
  beforeEach(() => fx.fresh());
  afterEach(() => fx.cleanup());

  /** Three endpoints of this tenant (two webhooks with their own headers, one NATS), 3 events each. */
  async function setUp() {
    const { webhooks, db } = { webhooks: fx.webhooks, db: fx.db };
    const tenant = fx.tenant;
    const a = await webhooks.createEndpoint(db.sql, {
      tenant,
      url: 'http://127.0.0.1:9/a',
      eventTypes: ['*'],
      headers: { 'x-endpoint': 'a' },
    });
    const b = await webhooks.createEndpoint(db.sql, {
      tenant,
      url: 'http://127.0.0.1:9/b',
      eventTypes: ['*'],
      headers: { 'x-endpoint': 'b' },
    });
    const c = await webhooks.createEndpoint(db.sql, {
      tenant,
      kind: 'nats',
      url: 'nats://127.0.0.1:9',
      destination: { subject: 'orders.{type}' },
      eventTypes: ['*'],
    });
    await db.sql.transaction(async (tx) => {
      for (let i = 0; i < 3; i++) await webhooks.publish(tx, { tenant, type: 'order.created', data: { i } });
    });
    return { a: a.endpoint, b: b.endpoint, c: c.endpoint };
  }

  const params = (by: string) => {
    clock += 120_000;
    const at = new Date(clock + 3_600_000).toISOString();
    return [at, 100, new Date(clock + 3_660_000).toISOString(), by, 200, 1000, 1000, [], [], []] as const;
  };

  test('each endpoint once in what PostgreSQL sends; every row the worker gets has its own endpoint', async () => {
    const { a, b, c } = await setUp();
    const st = webhooksInternals(fx.webhooks).st;
    // What the statement itself returns: the pick, then the take, as the claim runs them.
    const raw = await fx.db.sql.transaction(
      async (tx) => {
        const p = params('raw');
        const pick = (
          await tx.query<{ ids: string; events_from: string; events_to: string }>(st.claim, pickParams(p))
        ).rows[0]!;
        return (
          await tx.query<{ endpoint_id: string; url: string | null; tenant: string }>(st.claimTake, [
            pick.ids,
            p[0],
            p[2],
            p[3],
            pick.events_from,
            pick.events_to,
            [],
            [],
            [],
          ])
        ).rows.filter((r) => r.tenant === fx.tenant);
      },
      { first: st.claimSettings },
    );
    assert.equal(raw.length, 9);
    assert.deepEqual(
      raw
        .filter((r) => r.url !== null)
        .map((r) => r.endpoint_id)
        .sort(),
      [a.id, b.id, c.id].sort(),
      "each endpoint's URL once",
    );
    // What the worker gets: the same rows, each with its endpoint's settings.
    await fx.db.sql.query(
      `update ${fx.table('webhook_deliveries')} set lease_until = null, locked_by = null, attempts = 0
        where tenant = $1`,
      [fx.tenant],
    );
    const { rows } = await fx.db.sql.transaction((tx) => claimOnce(tx, fx.webhooks, params('filled')), {
      first: st.claimSettings,
    });
    const mine = rows.filter((r) => r.tenant === fx.tenant);
    assert.equal(mine.length, 9);
    const byEndpoint = new Map([
      [
        a.id,
        { url: 'http://127.0.0.1:9/a', kind: 'webhook', headers: { 'x-endpoint': 'a' }, destination: {} },
      ],
      [
        b.id,
        { url: 'http://127.0.0.1:9/b', kind: 'webhook', headers: { 'x-endpoint': 'b' }, destination: {} },
      ],
      [
        c.id,
        { url: 'nats://127.0.0.1:9', kind: 'nats', headers: {}, destination: { subject: 'orders.{type}' } },
      ],
    ]);
    for (const r of mine) {
      const want = byEndpoint.get(r.endpoint_id)!;
      assert.deepEqual(
        { url: r.url, kind: r.kind, headers: r.endpoint_headers, destination: r.destination },
        want,
        r.id,
      );
      assert.equal(r.secrets?.length, 1, 'its secret');
      assert.equal(r.endpoint_status, 'enabled');
    }
    // the secrets are each endpoint's own
    const secretOf = (id: string) => mine.find((r) => r.endpoint_id === id)!.secrets![0]!.secret;
    assert.equal(new Set([secretOf(a.id), secretOf(b.id), secretOf(c.id)]).size, 3);
    for (const r of mine) assert.equal(r.secrets![0]!.secret, secretOf(r.endpoint_id));
  });
});
