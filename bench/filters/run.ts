// What payload filters cost at fan-out (issue 37): one publish to a tenant with 1,000 subscribed
// endpoints, in its own transaction, timed from BEGIN to COMMIT. Three tenants side by side in the
// same database, each event published to each in turn (rounds interleaved, so drift hits all):
//   none    — 1,000 endpoints without a filter: 1,000 deliveries per event (the baseline);
//   all     — 1,000 endpoints, each with a 4-condition filter the event passes: 1,000 deliveries,
//             so the difference is the filters' evaluation alone;
//   tenth   — the same filters, passed by 100 endpoints of the 1,000: what filtering saves;
//   max     — filters at the language's bounds (199 nodes: four $in of 45 values on the payload's
//             array of lines and a $nor-like $not), none passing: the worst evaluation per event.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench node --conditions=@surety/source --import tsx bench/filters/run.ts [--quick]
// (PGlite without DATABASE_URL.) Loopback only, nothing is delivered (no worker); bounded: a fixed
// number of events per tenant.
import { createTestDatabase } from '@surety/db/testing';
import { Webhooks } from '@surety/webhooks';
import { emitResult } from '../lib/result.js';
import { args, median, percentile, round } from '../lib/stats.js';

const a = args();
const ENDPOINTS = a.num('endpoints', 1000);
const EVENTS = a.num('events', a.quick ? 20 : 100);

const db = await createTestDatabase();
const webhooks = new Webhooks({ sql: db.sql, schema: db.schema, maxEndpointsPerTenant: ENDPOINTS });
await webhooks.migrate();

/** The filter of endpoint i: passed by the event when `pass`, else only by one endpoint in ten. */
const filterOf = (i: number, pass: 'all' | 'tenth') => ({
  type: 'order.paid',
  'data.amount': { $gte: 100 },
  'data.currency': { $in: ['EUR', 'GBP', 'USD'] },
  'data.customer.country': pass === 'all' || i % 10 === 0 ? 'FR' : 'DE',
});

/** A filter of FILTER_LIMITS.nodes - 1 nodes that looks at every line of the payload and fails. */
const maxFilter = {
  $and: [
    {
      $or: [0, 1, 2, 3].map((k) => ({
        'data.lines.sku': { $in: Array.from({ length: 45 }, (_, i) => `NO-${k}-${i}`) },
      })),
    },
    { $not: { 'data.lines.quantity': { $gt: 0 } } },
  ],
};

const tenants = { none: 'bench-none', all: 'bench-all', tenth: 'bench-tenth', max: 'bench-max' } as const;
for (const [kind, tenant] of Object.entries(tenants)) {
  for (let i = 0; i < ENDPOINTS; i++) {
    await webhooks.createEndpoint(db.sql, {
      tenant,
      url: `https://hooks.example.com/${i}`,
      eventTypes: i % 2 === 0 ? ['order.paid'] : ['*'],
      ...(kind === 'none'
        ? {}
        : { filter: kind === 'max' ? maxFilter : filterOf(i, kind as 'all' | 'tenth') }),
    });
  }
}

const data = {
  id: 'ord_1',
  amount: 1999,
  currency: 'EUR',
  customer: { id: 'cus_1', country: 'FR', tags: ['vip', 'eu'] },
  lines: Array.from({ length: 10 }, (_, i) => ({ sku: `SKU-${i}`, quantity: i + 1, price: 199 })),
};

const times: Record<keyof typeof tenants, number[]> = { none: [], all: [], tenth: [], max: [] };
const deliveries: Record<keyof typeof tenants, number> = { none: 0, all: 0, tenth: 0, max: 0 };
for (let round = -2; round < EVENTS; round++) {
  for (const kind of Object.keys(tenants) as (keyof typeof tenants)[]) {
    const start = performance.now();
    const e = await db.sql.transaction((tx) =>
      webhooks.publish(tx, { tenant: tenants[kind], type: 'order.paid', data }),
    );
    const ms = performance.now() - start;
    if (round >= 0) times[kind].push(ms); // two warm-up rounds not counted
    deliveries[kind] = e.deliveries;
  }
}
await db.close();

const p50 = (k: keyof typeof tenants) => round(median(times[k]), 2);
const p95 = (k: keyof typeof tenants) => round(percentile(times[k], 95), 2);
const perRound = (k: keyof typeof tenants) => times[k].map((t, i) => t / times.none[i]!);
const ratio = (k: keyof typeof tenants) => round(median(perRound(k)), 2);
console.log(
  [
    `One publish (BEGIN…COMMIT) to a tenant with ${ENDPOINTS} subscribed endpoints, ${EVENTS} events each, ${db.backend}:`,
    '',
    '| endpoints | deliveries per event | p50 ms | p95 ms | ÷ no filters (median of per-event ratios) |',
    '| --------- | -------------------: | -----: | -----: | ----------------------------------------: |',
    `| no filter | ${deliveries.none} | ${p50('none')} | ${p95('none')} | 1 |`,
    `| 4-condition filter, all pass | ${deliveries.all} | ${p50('all')} | ${p95('all')} | ${ratio('all')} |`,
    `| 4-condition filter, 1 in 10 pass | ${deliveries.tenth} | ${p50('tenth')} | ${p95('tenth')} | ${ratio('tenth')} |`,
    `| 199-node filter over the 10 lines, none pass | ${deliveries.max} | ${p50('max')} | ${p95('max')} | ${ratio('max')} |`,
  ].join('\n'),
);
if (
  deliveries.none !== ENDPOINTS ||
  deliveries.all !== ENDPOINTS ||
  deliveries.tenth !== ENDPOINTS / 10 ||
  deliveries.max !== 0
) {
  throw new Error(`unexpected deliveries ${JSON.stringify(deliveries)}`);
}
emitResult({
  bench: 'filters',
  metrics: (Object.keys(tenants) as (keyof typeof tenants)[]).map((k) => ({
    name: `publish.${k}.p50`,
    value: p50(k),
    unit: 'ms',
  })),
  ratios: [
    {
      name: 'filters.all_pass',
      value: ratio('all'),
      what: 'publish to 1,000 filtered endpoints (all pass) ÷ unfiltered',
    },
    {
      name: 'filters.tenth_pass',
      value: ratio('tenth'),
      what: 'publish to 1,000 filtered endpoints (1 in 10 pass) ÷ unfiltered',
    },
  ],
});
