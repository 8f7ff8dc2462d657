// knex on Surety's transaction (knexOf), with Fastify. Installs: knex, pg, fastify.
import type { AddressInfo } from 'node:net';
import { createPgSql } from '@surety/db';
import { knexOf } from '@surety/db/knex';
import { createIdempotency } from '@surety/idempotency';
import { idempotency, txOf } from '@surety/idempotency/fastify';
import Fastify from 'fastify';
import { check, type PaymentBody } from './check.js';

const schema = `smoke_knex_${process.pid}`;
const sql = createPgSql({ connectionString: process.env.DATABASE_URL });
await sql.query(`create schema ${schema}`);
await sql.query(`create table ${schema}.payments (id text primary key, cents int not null)`);
const engine = createIdempotency({ sql, schema });
await engine.migrate();

const app = Fastify();
await app.register(idempotency, { engine });
app.post<{ Body: PaymentBody }>('/payments', { config: { idempotency: true } }, async (req, reply) => {
  const { id, cents } = req.body;
  await knexOf(txOf(req)).withSchema(schema).table('payments').insert({ id, cents }); // the key's transaction
  if (req.body.fail) throw new Error('the card network timed out, after the write');
  reply.code(201);
  return { id, cents };
});
await app.listen({ port: 0, host: '127.0.0.1' });

await check('knex (Surety owns the transaction, Fastify)', {
  url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
  count: async (id) =>
    (await sql.query<{ n: number }>(`select count(*)::int as n from ${schema}.payments where id = $1`, [id]))
      .rows[0]!.n,
  close: async () => {
    await app.close();
    await sql.query(`drop schema ${schema} cascade`);
    await sql.close();
  },
});
