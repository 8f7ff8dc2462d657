// The npm peer for the idempotency benchmark: Express 5 with express-idempotency 1.0 on its Redis
// adapter (127.0.0.1:6379), IDEMPOTENCY=on, or the same route without the middleware (off). The
// handler does the same database work as Surety's POST /v1/payments without idempotency: insert the
// payment, then record an outbox event, each its own statement, so each side is compared with its
// own baseline doing the same job.
//
// What it guarantees is weaker than Surety's: the key is read and written with two Redis commands
// (GET, then SET: two concurrent first requests can both run), and the key is not part of the
// business transaction. It is measured because it is what a team would find on npm.
import { randomUUID } from 'node:crypto';
import express from 'express';
import { getSharedIdempotencyService, idempotency } from 'express-idempotency';
import redisAdapter from 'express-idempotency-redis-adapter';
import pg from 'pg';

const schema = process.env.BENCH_SCHEMA ?? 'bench_idem_express';
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL ?? 10) });
await pool.query(`create schema if not exists ${schema}`);
await pool.query(`create table if not exists ${schema}.payments (
  tenant text not null, id text not null, amount numeric not null, currency text not null,
  customer_id text not null, status text not null, created_at timestamptz not null, primary key (tenant, id))`);
await pool.query(`create table if not exists ${schema}.events (
  tenant text not null, id text not null, type text not null, data text not null,
  created_at timestamptz not null, primary key (tenant, id))`);
const insertPayment = {
  name: 'insert_payment',
  text: `insert into ${schema}.payments (tenant, id, amount, currency, customer_id, status, created_at)
         values ($1, $2, $3, $4, $5, 'succeeded', $6) returning id, amount::text, currency, customer_id, status, created_at`,
};
const insertEvent = {
  name: 'insert_event',
  text: `insert into ${schema}.events (tenant, id, type, data, created_at) values ($1, $2, $3, $4, $5)`,
};

const on = process.env.IDEMPOTENCY !== 'off';
const adapter = on
  ? new redisAdapter.default({
      ttl: 600,
      connectionConfig: { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' },
    })
  : undefined;
await adapter?.connect();

const app = express();
app.use(express.json());
const handler: express.RequestHandler = async (req, res, next) => {
  try {
    if (on && getSharedIdempotencyService().isHit(req)) return;
    const { amount, currency, customerId } = req.body as Record<string, string>;
    const now = new Date().toISOString();
    const { rows } = await pool.query(insertPayment, [
      'bench',
      `pay_${randomUUID()}`,
      amount,
      currency,
      customerId,
      now,
    ]);
    await pool.query(insertEvent, [
      'bench',
      `evt_${randomUUID()}`,
      'payment.created',
      JSON.stringify(rows[0]),
      now,
    ]);
    res.status(201).json(rows[0]);
  } catch (error) {
    if (on) await getSharedIdempotencyService().reportError(req);
    next(error);
  }
};
if (adapter) app.post('/v1/payments', idempotency({ dataAdapter: adapter }), handler);
else app.post('/v1/payments', handler);

const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${address.port}` })}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  Promise.allSettled([pool.end(), adapter?.disconnect()]).then(() => process.exit(0));
});
