// The Hono adapter: the handler finds the key's transaction with c.get('tx'); a thrown error rolls
// it back (nothing is stored, the retry runs again) unless errorResponse stores it.
// Runs on PostgreSQL (DATABASE_URL) or, without it, on the embedded PGlite.
import { openSql } from '@surety/db';
import { createIdempotency } from '@surety/idempotency';
import { idempotency } from '@surety/idempotency/hono';
import { Hono } from 'hono';

const schema = `example_hono_${process.pid}`;
const sql = await openSql({
  databaseUrl: process.env.DATABASE_URL,
  pooler: process.env.SURETY_DATABASE_POOLER === 'transaction' ? 'transaction' : 'none',
});
const engine = createIdempotency({ sql, schema });
await engine.migrate();
await sql.query(`create table ${schema}.payments (id serial primary key, cents int not null)`);

const app = new Hono();
app.post('/payments', idempotency({ engine }), async (c) => {
  const { cents, fail } = await c.req.json<{ cents: number; fail?: boolean }>();
  const { rows } = await c
    .get('tx')
    .query(`insert into ${schema}.payments (cents) values ($1) returning *`, [cents]);
  if (fail) throw new Error('the card network timed out, after the write');
  return c.json(rows[0], 201);
});

const post = (key: string, body: object) =>
  app.request('/payments', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(body),
  });
const first = await post('k-1', { cents: 1999 });
const retry = await post('k-1', { cents: 1999 });
const failed = await post('k-2', { cents: 5, fail: true }); // rolled back, the payment with it
const { rows } = await sql.query<{ n: number }>(`select count(*)::int as n from ${schema}.payments`);
console.log(first.status, retry.headers.get('idempotent-replayed'), failed.status, rows[0]!.n);
// prints: 201 true 500 1

await sql.query(`drop schema ${schema} cascade`);
await sql.close();
