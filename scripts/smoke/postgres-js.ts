// postgres.js owns the transaction (postgresSql, postgresOf), with Express. Installs: postgres,
// express; Surety's engine and migrations run on postgres.js.
import { postgresOf, postgresSql } from '@surety/db/postgres-js';
import { createIdempotency } from '@surety/idempotency';
import { idempotency, txOf } from '@surety/idempotency/express';
import express from 'express';
import postgres from 'postgres';
import { check, type PaymentBody } from './check.js';
import { urlOf } from './surety.js';

const schema = `smoke_pgjs_${process.pid}`;
const pgjs = postgres(process.env.DATABASE_URL!, { onnotice: () => {} });
const sql = postgresSql(pgjs); // each Surety transaction is a postgres.js sql.begin()
const engine = createIdempotency({ sql, schema });
await engine.migrate();
await pgjs.unsafe(`create table ${schema}.payments (id text primary key, cents int not null)`);

const app = express();
app.post('/payments', express.json(), idempotency({ engine }), async (req, res) => {
  const body = req.body as PaymentBody;
  const trx = postgresOf(txOf(req)); // postgres.js' own transaction
  await trx`insert into ${trx(schema)}.payments ${trx({ id: body.id, cents: body.cents })}`;
  if (body.fail) throw new Error('the card network timed out, after the write');
  res.status(201).json({ id: body.id, cents: body.cents });
});
const server = app.listen(0, '127.0.0.1');

await check('postgres.js (postgres.js owns the transaction, Express)', {
  url: await urlOf(server),
  count: async (id) => {
    const [row] = await pgjs`select count(*)::int as n from ${pgjs(schema)}.payments where id = ${id}`;
    return row!.n as number;
  },
  close: async () => {
    server.close();
    await pgjs.unsafe(`drop schema ${schema} cascade`);
    await pgjs.end();
  },
});
