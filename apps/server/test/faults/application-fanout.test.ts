// Fan-out by application across processes (issue 19, docs/applications.md): a `surety serve`
// process for the API and two delivery worker processes on one PostgreSQL. Events published to
// application A reach A's endpoint only, B's reach B's only, and events without an application
// reach only the tenant's own endpoint; another tenant's application with the same uid hears
// nothing. Every event is delivered, each to exactly the endpoints of its audience. Loopback only.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, needsPostgres, postgresUrl, type TestDatabase } from '@surety/db/testing';
import { spawnWorkerProcess, startReceiver, stopProcess } from '@surety/webhooks/testing';
import { runMigrations } from '../../src/server.js';
import { serviceRegistry } from '../../src/service-events.js';
import { API_KEYS, auth, newKey } from '../helpers.js';
import { type ServerProcess, spawnServer } from '../spawn.js';
import { size } from './lib.js';

let db: TestDatabase;
let server: ServerProcess | undefined;
const workers: ChildProcess[] = [];
const receivers: { close(): Promise<void> }[] = [];
const sample = serviceRegistry().get('payment.created')!.sample;

describe('fan-out by application, two worker processes', { skip: needsPostgres }, () => {
  before(async () => {
    db = await createTestDatabase();
    await runMigrations(db.sql, db.schema);
  });
  after(async () => {
    await Promise.all(workers.map((w) => stopProcess(w, 'SIGKILL')));
    await server?.kill();
    await Promise.all(receivers.map((r) => r.close()));
    await db?.close();
  });

  test("app B's endpoint never receives app A's event; events of no application reach only the tenant's own", async () => {
    const n = size(40, 400);
    server = await spawnServer({
      schema: db.schema,
      apiKeys: API_KEYS,
      env: {
        SURETY_WORKER: 'off',
        SURETY_WEBHOOK_ALLOW_HTTP: 'true',
        SURETY_WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
      },
    });
    const base = server.url;
    for (let i = 0; i < 2; i++) {
      workers.push(await spawnWorkerProcess({ databaseUrl: postgresUrl!, schema: db.schema }));
    }
    const api = async (
      tenant: 'acme' | 'globex',
      method: string,
      path: string,
      body: unknown,
      key = false,
    ) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          'content-type': 'application/json',
          ...auth(tenant),
          ...(key ? { 'idempotency-key': newKey() } : {}),
        },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as Record<string, unknown>;
      assert.equal(res.status, 201, JSON.stringify(json));
      return json;
    };
    const rx = {
      a: await startReceiver(),
      b: await startReceiver(),
      own: await startReceiver(),
      theirs: await startReceiver(),
    };
    receivers.push(...Object.values(rx));
    const a = await api('acme', 'POST', '/v1/applications', { uid: 'customer-a', name: 'A' });
    const b = await api('acme', 'POST', '/v1/applications', { uid: 'customer-b', name: 'B' });
    await api('globex', 'POST', '/v1/applications', { uid: 'customer-a', name: 'Theirs' });
    const endpoint = (tenant: 'acme' | 'globex', url: string, applicationId?: string) =>
      api(tenant, 'POST', '/v1/webhook-endpoints', {
        url,
        eventTypes: ['*'],
        ...(applicationId ? { applicationId } : {}),
      });
    await endpoint('acme', rx.a.url, 'customer-a');
    await endpoint('acme', rx.b.url, String(b.id));
    await endpoint('acme', rx.own.url);
    await endpoint('globex', rx.theirs.url, 'customer-a');

    // Interleaved, a few at a time: A by uid, B by id, and the tenant's own.
    const sent = { a: new Set<string>(), b: new Set<string>(), own: new Set<string>() };
    const audiences = [
      ['a', 'customer-a'],
      ['b', String(b.id)],
      ['own', undefined],
    ] as const;
    for (let i = 0; i < n; i += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, n - i) }, async (_, j) => {
          for (const [name, application] of audiences) {
            const event = await api(
              'acme',
              'POST',
              '/v1/events',
              { type: 'payment.created', data: sample, ...(application ? { application } : {}) },
              true,
            );
            assert.equal(event.applicationId, name === 'a' ? a.id : name === 'b' ? b.id : null, `${i + j}`);
            sent[name].add(String(event.id));
          }
        }),
      );
    }

    await Promise.all([rx.a.waitFor(n, 60_000), rx.b.waitFor(n, 60_000), rx.own.waitFor(n, 60_000)]);
    const ids = (r: (typeof rx)['a']) =>
      new Set(r.received.map((x) => (JSON.parse(x.body) as { id: string }).id));
    assert.deepEqual(ids(rx.a), sent.a, "A's endpoint received exactly A's events");
    assert.deepEqual(ids(rx.b), sent.b, "B's endpoint received exactly B's events");
    assert.deepEqual(
      ids(rx.own),
      sent.own,
      "the tenant's own endpoint received exactly the events of no application",
    );

    // Nothing is queued or left for a wrong endpoint either: every delivery's endpoint is of its
    // event's audience, and each event has exactly one delivery.
    const s = `"${db.schema}"`;
    // A receiver has a request before its worker records the outcome (a batch written every few
    // milliseconds): wait, bounded, until the last outcomes are written.
    const count = () =>
      db.sql.query<{ wrong: number; deliveries: number; pending: number }>(
        `select count(*) filter (where ep.application_id is distinct from ev.application_id)::int as wrong,
              count(*)::int as deliveries, count(*) filter (where d.status = 'pending')::int as pending
         from ${s}.webhook_deliveries d
         join ${s}.webhook_events ev on ev.tenant = d.tenant and ev.id = d.event_id
         join ${s}.webhook_endpoints ep on ep.tenant = d.tenant and ep.id = d.endpoint_id`,
      );
    let { rows } = await count();
    for (let i = 0; i < 100 && rows[0]!.pending > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      ({ rows } = await count());
    }
    assert.deepEqual(rows[0], { wrong: 0, deliveries: 3 * n, pending: 0 });
    assert.equal(rx.theirs.received.length, 0, "another tenant's application of the same uid heard nothing");
  });
});
