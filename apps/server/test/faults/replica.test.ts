// List routes on a read replica (issue 33, item 4): with SURETY_DATABASE_REPLICA_URL the service reads
// its lists from a streaming standby (two private clusters, clusters.ts); writes, key claims,
// conditional writes, single-resource reads, pull polls and the delivery engine stay on DATABASE_URL.
// The standby refuses writes, so anything routed to it by mistake fails; each pool names itself
// (application_name), so where the reads ran is counted on each server. With the replica gone, lists
// answer 503 with Retry-After and everything else goes on.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPgSql, type Sql } from '@surety/db';
import { directOnly, needsPostgres } from '@surety/db/testing';
import { API_KEYS, auth } from '../helpers.js';
import { type ServerProcess, spawnServer } from '../spawn.js';
import { clustersMissing, type Pair, startPair } from './clusters.js';

let pair: Pair;
let server: ServerProcess | undefined;
const opened: Sql[] = [];

describe('list routes on a read replica', {
  skip: needsPostgres || directOnly || clustersMissing(),
  timeout: 120_000,
}, () => {
  before(async () => {
    pair = await startPair('surety');
  });
  after(async () => {
    await server?.kill();
    for (const s of opened) await s.close();
    await pair?.destroy();
  });

  test('lists come from the replica; writes and single reads from the primary; no replica, lists 503', async () => {
    server = await spawnServer({
      schema: 'surety',
      apiKeys: API_KEYS,
      env: {
        DATABASE_URL: pair.urlOf(pair.primary, 'surety'),
        SURETY_DATABASE_REPLICA_URL: pair.urlOf(pair.standby, 'surety'),
        SURETY_DATABASE_POOLER: '',
        SURETY_DATABASE_DIRECT_URL: '',
        SURETY_WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
        SURETY_WEBHOOK_ALLOW_HTTP: 'true',
      },
    });
    const base = server.url;
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${base}${path}`, {
        method,
        headers: {
          ...auth('acme'),
          ...(body === undefined
            ? {}
            : { 'content-type': 'application/json', 'idempotency-key': `replica-${path}-${Math.random()}` }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    // Writes: had one gone to the standby, it would fail (read-only transaction).
    const ep = await call('POST', '/v1/webhook-endpoints', {
      url: 'http://127.0.0.1:9/hooks',
      eventTypes: ['payment.created'],
    });
    assert.equal(ep.status, 201, await ep.clone().text());
    const endpoint = (await ep.json()) as { id: string };
    const pay = await call('POST', '/v1/payments', {
      amount: '1200',
      currency: 'USD',
      customerId: 'cus_r1',
    });
    assert.equal(pay.status, 201, await pay.clone().text());
    const payment = (await pay.json()) as { id: string };
    // A single resource just written: from the primary, at once.
    assert.equal((await call('GET', `/v1/webhook-endpoints/${endpoint.id}`)).status, 200);
    assert.equal((await call('GET', `/v1/payments/${payment.id}`)).status, 200);

    // Lists: from the standby, once it has applied the writes (bounded wait: its replay lag).
    const list = async (path: string, has: (body: { data: { id?: string; type?: string }[] }) => boolean) => {
      const until = Date.now() + 10_000;
      for (;;) {
        const res = await call('GET', path);
        assert.equal(res.status, 200, `${path}: ${await res.clone().text()}`);
        if (has((await res.json()) as { data: { id?: string; type?: string }[] })) return;
        if (Date.now() > until) assert.fail(`${path}: the replica never showed the write`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await list('/v1/webhook-endpoints', (b) => b.data.some((e) => e.id === endpoint.id));
    await list('/v1/payments', (b) => b.data.some((p) => p.id === payment.id));
    await list('/v1/events', (b) => b.data.some((e) => e.type === 'payment.created'));

    const readsOn = async (url: string) => {
      const s = createPgSql({ connectionString: url, max: 1 });
      opened.push(s);
      const { rows } = await s.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity where application_name = 'surety-reads'`,
      );
      return rows[0]!.n;
    };
    assert.ok((await readsOn(pair.urlOf(pair.standby, 'postgres'))) > 0, 'the lists ran on the standby');
    assert.equal(await readsOn(pair.urlOf(pair.primary, 'postgres')), 0, 'no list pool on the primary');

    // The replica gone: lists 503 (fail closed, problem+json, Retry-After), the rest unaffected.
    // startPair makes the standby synchronous: the primary's commits would wait for it for ever, so
    // first it stops waiting (what an operator does when a synchronous replica is lost).
    const primary = createPgSql({ connectionString: pair.urlOf(pair.primary, 'postgres'), max: 1 });
    opened.push(primary);
    await primary.query(`alter system set synchronous_standby_names = ''`);
    await primary.query('select pg_reload_conf()');
    await pair.crash(pair.standby);
    const down = await call('GET', '/v1/webhook-endpoints');
    assert.equal(down.status, 503, await down.clone().text());
    assert.ok(down.headers.get('retry-after'));
    assert.equal(((await down.json()) as { code: string }).code, 'database_unavailable');
    assert.equal((await call('GET', `/v1/webhook-endpoints/${endpoint.id}`)).status, 200);
    const again = await call('POST', '/v1/payments', {
      amount: '1300',
      currency: 'USD',
      customerId: 'cus_r2',
    });
    assert.equal(again.status, 201, await again.clone().text());
  });
});
