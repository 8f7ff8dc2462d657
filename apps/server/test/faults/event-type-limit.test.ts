// Issue 30, N5: a tenant's event types stop at MAX_EVENT_TYPES_PER_TENANT under concurrent creates.
// Counting the types, then inserting, let 20 creates at 195 types end at 205; the count is now one
// row per tenant, taken in the statement that inserts (like the endpoint limit, issue 15).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { needsPostgres } from '@surety/db/testing';
import { MAX_EVENT_TYPES_PER_TENANT } from '../../src/routes/event-types.js';
import { auth, createTestApp, problem, type TestApp } from '../helpers.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const create = (name: string, tenant: 'acme' | 'globex' = 'acme') =>
  t.app.inject({
    method: 'POST',
    url: '/v1/event-types',
    headers: { 'content-type': 'application/json', ...auth(tenant) },
    payload: JSON.stringify({
      name,
      description: 'A type.',
      schema: { type: 'object', properties: { id: { type: 'string' } } },
      examples: [{ id: 'x' }],
    }),
  });
const count = (tenant: string) => t.count('event_types', 'tenant = $1', [tenant]);

test('20 concurrent creates at 5 below the limit end exactly at the limit', {
  skip: needsPostgres,
}, async () => {
  const below = MAX_EVENT_TYPES_PER_TENANT - 5;
  for (let i = 0; i < below; i += 20) {
    const batch = Array.from({ length: Math.min(20, below - i) }, (_, j) => create(`seed.t${i + j}`));
    for (const r of await Promise.all(batch)) assert.equal(r.statusCode, 201, r.body);
  }
  assert.equal(await count('acme'), below);
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => create(`race.t${i}`)));
  const ok = results.filter((r) => r.statusCode === 201).length;
  for (const r of results.filter((r) => r.statusCode !== 201)) problem(r, 409, 'event_type_limit_reached');
  assert.equal(ok, 5);
  assert.equal(await count('acme'), MAX_EVENT_TYPES_PER_TENANT);
  problem(await create('after.limit'), 409, 'event_type_limit_reached');
  // The same name twice at once: one 201, one 409 event_type_exists, and the slot is not lost.
  const [a, b] = await Promise.all([create('twin.t', 'globex'), create('twin.t', 'globex')]);
  assert.deepEqual([a.statusCode, b.statusCode].sort(), [201, 409]);
  assert.equal(await count('globex'), 1);
  for (let i = 1; i < MAX_EVENT_TYPES_PER_TENANT; i += 20) {
    const n = Math.min(20, MAX_EVENT_TYPES_PER_TENANT - i);
    const batch = Array.from({ length: n }, (_, j) => create(`fill.t${i + j}`, 'globex'));
    for (const r of await Promise.all(batch)) assert.equal(r.statusCode, 201, r.body);
  }
  problem(await create('after.limit', 'globex'), 409, 'event_type_limit_reached');
  assert.equal(await count('globex'), MAX_EVENT_TYPES_PER_TENANT);
});
