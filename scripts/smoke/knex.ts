// knex on Surety's transaction (knexOf), with Fastify. Installs: knex, pg, fastify.
import { knexOf } from '@surety/db/knex';
import { idempotency, txOf } from '@surety/idempotency/fastify';
import Fastify from 'fastify';
import { check, type PaymentBody } from './check.js';
import { suretyOnPg } from './surety.js';

const { schema, engine, count, drop } = await suretyOnPg('knex');
const app = Fastify();
await app.register(idempotency, { engine });
app.post<{ Body: PaymentBody }>('/payments', { config: { idempotency: true } }, async (req, reply) => {
  const { id, cents } = req.body;
  await knexOf(txOf(req)).withSchema(schema).table('payments').insert({ id, cents }); // the key's transaction
  if (req.body.fail) throw new Error('the card network timed out, after the write');
  reply.code(201);
  return { id, cents };
});

await check('knex (Surety owns the transaction, Fastify)', {
  url: await app.listen({ port: 0, host: '127.0.0.1' }),
  count,
  close: async () => {
    await app.close();
    await drop();
  },
});
