// TypeORM on Surety's transaction (typeormOf), with Fastify. Installs: typeorm, pg, fastify.
import { typeormOf } from '@surety/db/typeorm';
import { idempotency, txOf } from '@surety/idempotency/fastify';
import Fastify from 'fastify';
import { DataSource, EntitySchema } from 'typeorm';
import { check, type PaymentBody } from './check.js';
import { suretyOnPg } from './surety.js';

const { schema, engine, drop } = await suretyOnPg('typeorm');
const Payment = new EntitySchema<{ id: string; cents: number }>({
  name: 'Payment',
  tableName: 'payments',
  schema,
  columns: { id: { type: String, primary: true }, cents: { type: Number } },
});
const dataSource = await new DataSource({
  type: 'postgres',
  url: process.env.DATABASE_URL,
  entities: [Payment],
}).initialize();

const app = Fastify();
await app.register(idempotency, { engine });
app.post<{ Body: PaymentBody }>('/payments', { config: { idempotency: true } }, async (req, reply) => {
  // TypeORM's EntityManager on the key's transaction: save() opens no transaction of its own.
  const payment = await typeormOf(dataSource, txOf(req)).save(Payment, {
    id: req.body.id,
    cents: req.body.cents,
  });
  if (req.body.fail) throw new Error('the card network timed out, after the write');
  reply.code(201);
  return { id: payment.id, cents: payment.cents };
});

await check('typeorm (Surety owns the transaction, Fastify)', {
  url: await app.listen({ port: 0, host: '127.0.0.1' }),
  count: (id) => dataSource.getRepository(Payment).countBy({ id }),
  close: async () => {
    await app.close();
    await dataSource.destroy();
    await drop();
  },
});
