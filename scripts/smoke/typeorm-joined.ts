// TypeORM, inside a transaction the route opens itself (typeormTransaction: dataSource.transaction()
// with Surety joined to it), with Fastify: the engine claims the key in a SAVEPOINT of it, and the
// key commits with the payment when TypeORM commits. Installs: typeorm, pg, fastify.
import { typeormSql, typeormTransaction } from '@surety/db/typeorm';
import { createIdempotency } from '@surety/idempotency';
import Fastify from 'fastify';
import { check, type PaymentBody } from './check.js';
import { created, joinedPost } from './joined.js';
import { paymentsDataSource } from './typeorm-entity.js';

const schema = `smoke_typeorm_joined_${process.pid}`;
const { dataSource, Payment } = await paymentsDataSource(schema);
const engine = createIdempotency({ sql: typeormSql(dataSource), schema });
await engine.migrate();
await dataSource.query(`create table ${schema}.payments (id text primary key, cents int not null)`);

const app = Fastify();
app.post<{ Body: PaymentBody }>('/payments', async (req, reply) => {
  const body = req.body;
  const answer = await joinedPost(req.headers['idempotency-key'], body, (request) =>
    typeormTransaction(dataSource, (manager, joined) =>
      engine.using(joined).execute(request, async () => {
        await manager.save(Payment, { id: body.id, cents: body.cents });
        if (body.fail) throw new Error('the card network timed out, after the write');
        return created(body);
      }),
    ),
  );
  return reply.code(answer.status).headers(answer.headers).send(answer.body);
});

await check('typeorm (a transaction you opened: typeormTransaction, Fastify)', {
  url: await app.listen({ port: 0, host: '127.0.0.1' }),
  count: (id) => dataSource.getRepository(Payment).countBy({ id }),
  close: async () => {
    await app.close();
    await dataSource.query(`drop schema ${schema} cascade`);
    await dataSource.destroy();
  },
});
