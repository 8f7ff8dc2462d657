// A completion whose answer is lost: the statement commits (the outcomes and the attempt rows are
// recorded), then the connection drops before the worker hears of it. The worker keeps the batch and
// writes it again, as it must (it cannot tell a lost answer from a write that never happened). The
// second write changes no delivery (the update is fenced by locked_by, which the first cleared), and
// it must not record the attempts again: each attempt's id is made once, when the outcome is taken,
// so the second insert finds them there. The fault is injected at the client boundary: a real
// statement, then the error a dropped connection raises.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import type { Sql } from '@surety/db';
import { startReceiver } from '../src/testing.js';
import { useEngine } from './fixture.js';

const fx = useEngine({ tenantPrefix: 'lostc' });
beforeEach(fx.fresh);
afterEach(fx.cleanup);

/** fx's database, where the first `n` completions run and then fail as a dropped connection does. */
function lossy(sql: Sql, lose: { n: number }): Sql {
  return new Proxy(sql, {
    get(target, prop, receiver) {
      if (prop !== 'query') return Reflect.get(target, prop, receiver);
      return async (statement: Parameters<Sql['query']>[0], params?: readonly unknown[]) => {
        const result = await target.query(statement, params);
        const text = typeof statement === 'string' ? statement : statement.text;
        if (text.includes('jsonb_array_elements($5') && lose.n > 0) {
          lose.n--;
          throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
        }
        return result;
      };
    },
  }) as Sql;
}

test('a completion whose answer was lost is written again without recording its attempts twice', async () => {
  const rx = fx.closeLater(await startReceiver());
  const { tenant } = fx;
  await fx.webhooks.createEndpoint(fx.db.sql, { tenant, url: rx.url, eventTypes: ['*'] });
  await fx.db.sql.transaction(async (tx) => {
    for (let i = 0; i < 3; i++) await fx.webhooks.publish(tx, { tenant, type: 'order.created', data: { i } });
  });
  const lose = { n: 1 };
  const worker = fx.workerOn(lossy(fx.db.sql, lose), { pollIntervalMs: 50 });
  const errors: Error[] = [];
  let resumed = 0;
  worker.on('worker:error', (e: Error) => errors.push(e));
  worker.on('outcomes:resumed', () => resumed++);
  await worker.start();
  try {
    await rx.waitFor(3, 10_000);
    // The lost answer, then the writer's retry after its back-off.
    for (let i = 0; i < 200 && (lose.n > 0 || resumed === 0); i++)
      await new Promise((r) => setTimeout(r, 25));
  } finally {
    await worker.stop();
  }
  assert.equal(lose.n, 0, 'a completion answer was lost');
  assert.ok(resumed > 0, 'the writer wrote the batch again and resumed');
  assert.ok(
    errors.some((e) => /Connection terminated/.test(e.message)),
    'the lost answer was reported',
  );
  // The second write is not refused for the attempts' ids either (nothing reported as unstorable).
  assert.deepEqual(
    errors.filter((e) => !/Connection terminated/.test(e.message)).map((e) => e.message),
    [],
  );
  const { rows } = await fx.db.sql.query<{ id: string; status: string; attempts: number; rows: number }>(
    `select d.id, d.status, d.attempts, (select count(*)::int from ${fx.table('webhook_attempts')} a
                                          where a.tenant = d.tenant and a.delivery_id = d.id) as rows
       from ${fx.table('webhook_deliveries')} d where d.tenant = $1 order by d.id`,
    [tenant],
  );
  assert.equal(rx.received.length, 3, 'each delivery was sent once');
  assert.deepEqual(
    rows.map((r) => [r.status, r.attempts, r.rows]),
    [
      ['delivered', 1, 1],
      ['delivered', 1, 1],
      ['delivered', 1, 1],
    ],
    'each delivery delivered, one attempt counted and one attempt row',
  );
});
