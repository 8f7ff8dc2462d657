// TypeORM on Surety's transaction (typeormOf), with Fastify. Installs: typeorm, pg, fastify.
import type { AddressInfo } from 'node:net';
import { createPgSql } from '@surety/db';
import { typeormOf } from '@surety/db/typeorm';
import { createIdempotency } from '@surety/idempotency';
import { idempotency, txOf } from '@surety/idempotency/fastify';
import Fastify from 'fastify';
import { DataSource, EntitySchema } from 'typeorm';
import { check, type PaymentBody } from './check.js';

const schema = `smoke_typeorm_${process.pid}`;
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
const sql = createPgSql({ connectionString: process.env.DATABASE_URL });
await sql.query(`create schema ${schema}`);
await sql.query(`create table ${schema}.payments (id text primary key, cents int not null)`);
const engine = createIdempotency({ sql, schema });
await engine.migrate();

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
await app.listen({ port: 0, host: '127.0.0.1' });

await check('typeorm (Surety owns the transaction, Fastify)', {
  url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
  count: (id) => dataSource.getRepository(Payment).countBy({ id }),
  close: async () => {
    await app.close();
    await sql.query(`drop schema ${schema} cascade`);
    await Promise.all([sql.close(), dataSource.destroy()]);
  },
});
