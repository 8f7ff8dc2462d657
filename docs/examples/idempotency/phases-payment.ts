// Phased mode: a payment charged at an outside provider, safe to retry. The provider charges, then its
// answer is lost (a reset connection); the client's retry with the same Idempotency-Key resumes after
// the committed `created` phase and repeats the charge with the same derived key, which the provider
// answers as the same request: one charge, one payment. PostgreSQL (DATABASE_URL) or PGlite.
import { openSql, type Tx } from '@surety/db';
import { createIdempotency, fingerprint, phasedOperation } from '@surety/idempotency';

// A provider that deduplicates on the idempotency key it is given, as Stripe does. Its first answer
// is lost after it charged.
const charges = new Map<string, string>();
let lose = 1;
const psp = {
  async charge(cents: number, options: { idempotencyKey: string }) {
    if (!charges.has(options.idempotencyKey)) charges.set(options.idempotencyKey, `ch_${charges.size + 1}`);
    if (lose-- > 0) throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    return { id: charges.get(options.idempotencyKey)!, cents };
  },
};

const schema = `example_phases_${process.pid}`;
// Behind a transaction-mode pooler (Supabase, Neon, RDS Proxy): SURETY_DATABASE_POOLER=transaction.
const sql = await openSql({
  databaseUrl: process.env.DATABASE_URL,
  pooler: process.env.SURETY_DATABASE_POOLER === 'transaction' ? 'transaction' : 'none',
});
const engine = createIdempotency({ sql, schema, ttlMs: 24 * 3600_000 });
await engine.migrate();
const payments = `${schema}.payments`;
await sql.query(
  `create table ${payments} (id text primary key, cents int not null, status text not null, charge text)`,
);

const insertProcessing = async (tx: Tx, input: { cents: number }) => {
  const id = `pay_${Date.now().toString(36)}`;
  await tx.query(`insert into ${payments} (id, cents, status) values ($1, $2, 'processing')`, [
    id,
    input.cents,
  ]);
  return { id };
};

const createPayment = phasedOperation('payments.create', async (flow, input: { cents: number }) => {
  // 1. local: its writes and the key's recovery point commit in one transaction
  const payment = await flow.local('created', (tx) => insertProcessing(tx, input));
  // 2. external: no transaction open; the same derived key on every resume
  const charge = await flow.external('charge', (key) => psp.charge(input.cents, { idempotencyKey: key }));
  // 3. local: the result in one transaction (publish the payment's events here too)
  await flow.local('settled', (tx) =>
    tx.query(`update ${payments} set status = 'succeeded', charge = $2 where id = $1`, [
      payment.id,
      charge.id,
    ]),
  );
  const body = JSON.stringify({ id: payment.id, status: 'succeeded', charge: charge.id });
  return { status: 201, headers: { 'content-type': 'application/json' }, body };
});

const body = { cents: 1999 };
const request = {
  tenant: 'acme',
  key: 'order-42-payment',
  fingerprint: fingerprint({ method: 'POST', url: '/v1/payments', body }),
};
try {
  // The first try: the payment row commits, the charge happens, its answer is lost.
  const first = await engine.phased(request, createPayment, body).catch((error: Error) => error.message);
  // The client retries with the same key: it resumes at the charge, then settles.
  const retry = await engine.phased(request, createPayment, body);
  // And once more: the stored answer, byte for byte.
  const again = await engine.phased(request, createPayment, body);
  const { rows } = await sql.query<{ n: number }>(`select count(*)::int as n from ${payments}`);
  const same =
    retry.kind === 'executed' && again.kind === 'replayed' && again.response.body === retry.response.body;
  console.log(
    `first: ${first}; retry: ${retry.kind}; again: ${again.kind} (same body: ${same}); payments ${rows[0]!.n}, charges ${charges.size}`,
  );
  // prints: first: socket hang up; retry: executed; again: replayed (same body: true); payments 1, charges 1
} finally {
  await sql.query(`drop schema ${schema} cascade`);
  await sql.close();
}
