// postgres.js, inside a transaction the route opens itself (postgresBegin: sql.begin() with Surety
// joined to it), with Express: the engine claims the key in a SAVEPOINT of it, and the key commits
// with the payment when sql.begin() commits. Installs: postgres, express.
import { postgresBegin, postgresSql } from '@surety/db/postgres-js';
import { createIdempotency } from '@surety/idempotency';
import express from 'express';
import postgres from 'postgres';
import { check, type PaymentBody } from './check.js';
import { created, joinedPost } from './joined.js';
import { urlOf } from './surety.js';

const schema = `smoke_pgjs_begin_${process.pid}`;
const pgjs = postgres(process.env.DATABASE_URL!, { onnotice: () => {} });
const engine = createIdempotency({ sql: postgresSql(pgjs), schema });
await engine.migrate();
await pgjs.unsafe(`create table ${schema}.payments (id text primary key, cents int not null)`);

const app = express();
app.post('/payments', express.json(), async (req, res) => {
  const body = req.body as PaymentBody;
  const answer = await joinedPost(req.headers['idempotency-key'], body, (request) =>
    postgresBegin(pgjs, (trx, joined) =>
      engine.using(joined).execute(request, async () => {
        await trx`insert into ${trx(schema)}.payments ${trx({ id: body.id, cents: body.cents })}`;
        if (body.fail) throw new Error('the card network timed out, after the write');
        return created(body);
      }),
    ),
  );
  res.status(answer.status).set(answer.headers).send(answer.body);
});
const server = app.listen(0, '127.0.0.1');

await check('postgres.js (a transaction you opened: postgresBegin, Express)', {
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
