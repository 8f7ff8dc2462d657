// TypeORM owns the transaction (typeormSql, typeormOf), with Fastify: the engine's claim, its
// migrations and the payment run in TypeORM's transactions (dataSource.transaction), on its pool.
// Installs: typeorm, pg, fastify.
import { typeormOf, typeormSql } from '@surety/db/typeorm';
import { createIdempotency } from '@surety/idempotency';
import { idempotency, txOf } from '@surety/idempotency/fastify';
import Fastify from 'fastify';
import { check, type PaymentBody } from './check.js';
import { paymentsDataSource } from './typeorm-entity.js';

const schema = `smoke_typeorm_owns_${process.pid}`;
const { dataSource, Payment } = await paymentsDataSource(schema);
const sql = typeormSql(dataSource); // every Surety transaction is a TypeORM transaction
const engine = createIdempotency({ sql, schema });
await engine.migrate(); // through TypeORM
await sql.query(`create table ${schema}.payments (id text primary key, cents int not null)`);

const app = Fastify();
await app.register(idempotency, { engine });
app.post<{ Body: PaymentBody }>('/payments', { config: { idempotency: true } }, async (req, reply) => {
  // TypeORM's transactional EntityManager, the one the engine's claim ran on.
  const payment = await typeormOf(dataSource, txOf(req)).save(Payment, {
    id: req.body.id,
    cents: req.body.cents,
  });
  if (req.body.fail) throw new Error('the card network timed out, after the write');
  reply.code(201);
  return { id: payment.id, cents: payment.cents };
});

await check('typeorm (TypeORM owns the transaction: typeormSql, Fastify)', {
  url: await app.listen({ port: 0, host: '127.0.0.1' }),
  count: (id) => dataSource.getRepository(Payment).countBy({ id }),
  close: async () => {
    await app.close();
    await dataSource.query(`drop schema ${schema} cascade`);
    await dataSource.destroy();
  },
});
