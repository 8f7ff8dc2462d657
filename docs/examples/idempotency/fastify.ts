// The Fastify adapter: a route opts in with config.idempotency, writes on txOf(req), and returns its
// payload, which the plugin serialises, commits with the key, then sends. Keys are scoped per tenant.
// Runs on PostgreSQL (DATABASE_URL) or, without it, on the embedded PGlite.
import { openSql } from '@surety/db';
import { createIdempotency } from '@surety/idempotency';
import { idempotency, txOf } from '@surety/idempotency/fastify';
import Fastify from 'fastify';

const schema = `example_fastify_${process.pid}`;
const sql = await openSql({
  databaseUrl: process.env.DATABASE_URL,
  pooler: process.env.SURETY_DATABASE_POOLER === 'transaction' ? 'transaction' : 'none',
});
const engine = createIdempotency({ sql, schema, ttlMs: 24 * 3600_000 });
await engine.migrate();
await sql.query(`create table ${schema}.payments (id serial primary key, tenant text, cents int not null)`);

const app = Fastify();
const tenantOf = (req: { headers: Record<string, unknown> }) => String(req.headers['x-tenant']);
await app.register(idempotency, { engine, tenant: tenantOf });
app.post<{ Body: { cents: number } }>('/payments', { config: { idempotency: true } }, async (req, reply) => {
  const { rows } = await txOf(req).query<{ id: number; cents: number }>(
    `insert into ${schema}.payments (tenant, cents) values ($1, $2) returning id, cents`,
    [tenantOf(req), req.body.cents],
  );
  reply.code(201).header('location', `/payments/${rows[0]!.id}`);
  return rows[0];
});

const send = (tenant: string) =>
  app.inject({
    method: 'POST',
    url: '/payments',
    headers: { 'idempotency-key': 'k-1', 'x-tenant': tenant },
    payload: { cents: 1999 },
  });
const first = await send('acme');
const retry = await send('acme'); // the same bytes, Location included
const other = await send('globex'); // the same key in another tenant: another operation
const { rows } = await sql.query<{ n: number }>(`select count(*)::int as n from ${schema}.payments`);
console.log(
  first.statusCode,
  retry.headers['idempotent-replayed'],
  retry.headers.location,
  other.statusCode,
  rows[0]!.n,
);
// prints: 201 true /payments/1 201 2

await app.close();
await sql.query(`drop schema ${schema} cascade`);
await sql.close();
