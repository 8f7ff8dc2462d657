// Kysely owns the transaction (kyselySql, kyselyOf), with Fastify: the engine's claim, its migrations
// and the payment run in Kysely's transactions, on Kysely's pool. Installs: kysely, pg, fastify.
import { kyselyOf, kyselySql } from '@surety/db/kysely';
import { createIdempotency } from '@surety/idempotency';
import { idempotency, txOf } from '@surety/idempotency/fastify';
import Fastify from 'fastify';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { check, type PaymentBody } from './check.js';

interface Database {
  payments: { id: string; cents: number };
}

const schema = `smoke_kysely_owns_${process.pid}`;
const db = new Kysely<Database>({
  dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) }),
});
const sql = kyselySql(db); // every Surety transaction is a Kysely transaction
const engine = createIdempotency({ sql, schema });
await engine.migrate(); // through Kysely
await sql.query(`create table ${schema}.payments (id text primary key, cents int not null)`);

const app = Fastify();
await app.register(idempotency, { engine });
app.post<{ Body: PaymentBody }>('/payments', { config: { idempotency: true } }, async (req, reply) => {
  const trx = kyselyOf<Database>(txOf(req)).withSchema(schema); // Kysely's own transaction
  await trx.insertInto('payments').values({ id: req.body.id, cents: req.body.cents }).execute();
  if (req.body.fail) throw new Error('the card network timed out, after the write');
  reply.code(201);
  return { id: req.body.id, cents: req.body.cents };
});

await check('kysely (Kysely owns the transaction: kyselySql, Fastify)', {
  url: await app.listen({ port: 0, host: '127.0.0.1' }),
  count: async (id) => {
    const row = await db
      .withSchema(schema)
      .selectFrom('payments')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },
  close: async () => {
    await app.close();
    await sql.query(`drop schema ${schema} cascade`);
    await db.destroy();
  },
});
