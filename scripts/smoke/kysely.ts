// Kysely on Surety's transaction (kyselyOf), with Fastify. Installs: kysely, pg, fastify.
import { kyselyOf } from '@surety/db/kysely';
import { idempotency, txOf } from '@surety/idempotency/fastify';
import Fastify from 'fastify';
import { check, type PaymentBody } from './check.js';
import { suretyOnPg } from './surety.js';

interface Database {
  payments: { id: string; cents: number };
}

const { schema, engine, count, drop } = await suretyOnPg('kysely');
const app = Fastify();
await app.register(idempotency, { engine });
app.post<{ Body: PaymentBody }>('/payments', { config: { idempotency: true } }, async (req, reply) => {
  const db = kyselyOf<Database>(txOf(req)).withSchema(schema); // typed, on the key's transaction
  await db.insertInto('payments').values({ id: req.body.id, cents: req.body.cents }).execute();
  if (req.body.fail) throw new Error('the card network timed out, after the write');
  reply.code(201);
  return { id: req.body.id, cents: req.body.cents };
});

await check('kysely (Surety owns the transaction, Fastify)', {
  url: await app.listen({ port: 0, host: '127.0.0.1' }),
  count,
  close: async () => {
    await app.close();
    await drop();
  },
});
