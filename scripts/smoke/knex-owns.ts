// knex owns the transaction (knexSql, knexOf), with Fastify: the engine's claim, its migrations and
// the payment run in knex's transactions, on knex's pool. Installs: knex, pg, fastify.
import { knexOf, knexSql } from '@surety/db/knex';
import { createIdempotency } from '@surety/idempotency';
import { idempotency, txOf } from '@surety/idempotency/fastify';
import Fastify from 'fastify';
import createKnex from 'knex';
import { check, type PaymentBody } from './check.js';

const schema = `smoke_knex_owns_${process.pid}`;
const knex = createKnex({ client: 'pg', connection: process.env.DATABASE_URL });
const sql = knexSql(knex); // every Surety transaction is a knex transaction
const engine = createIdempotency({ sql, schema });
await engine.migrate(); // through knex
await sql.query(`create table ${schema}.payments (id text primary key, cents int not null)`);

const app = Fastify();
await app.register(idempotency, { engine });
app.post<{ Body: PaymentBody }>('/payments', { config: { idempotency: true } }, async (req, reply) => {
  const { id, cents } = req.body;
  await knexOf(txOf(req)).withSchema(schema).table('payments').insert({ id, cents }); // knex's own trx
  if (req.body.fail) throw new Error('the card network timed out, after the write');
  reply.code(201);
  return { id, cents };
});

await check('knex (knex owns the transaction: knexSql, Fastify)', {
  url: await app.listen({ port: 0, host: '127.0.0.1' }),
  count: async (id) => {
    const [row] = await knex.withSchema(schema).table('payments').where({ id }).count({ n: '*' });
    return Number(row?.n);
  },
  close: async () => {
    await app.close();
    await sql.query(`drop schema ${schema} cascade`);
    await knex.destroy();
  },
});
