// The Express adapter, after express.json(): what the route writes is held back, committed with the
// key, then sent. errorResponse turns a decline into an answer stored with the key; it sees the
// route's errors through idem.errors, mounted before your own error handler.
// Runs on PostgreSQL (DATABASE_URL) or, without it, on the embedded PGlite.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { openSql } from '@surety/db';
import { type AdapterOutcome, createIdempotency } from '@surety/idempotency';
import { idempotency, txOf } from '@surety/idempotency/express';
import express from 'express';

const schema = `example_express_${process.pid}`;
const sql = await openSql({
  databaseUrl: process.env.DATABASE_URL,
  pooler: process.env.SURETY_DATABASE_POOLER === 'transaction' ? 'transaction' : 'none',
});
const engine = createIdempotency({ sql, schema });
await engine.migrate();
await sql.query(`create table ${schema}.payments (id serial primary key, cents int not null)`);

class CardDeclined extends Error {}
const outcomes: AdapterOutcome[] = [];
const idem = idempotency({
  engine,
  // A decline is the operation's final answer: a 4xx stored with the key, and replayed.
  errorResponse: (error) =>
    error instanceof CardDeclined
      ? { status: 402, headers: { 'content-type': 'application/json' }, body: '{"code":"card_declined"}' }
      : undefined,
  onOutcome: (outcome) => outcomes.push(outcome), // executed, replayed, in_flight, mismatch, unavailable
});

const app = express();
app.post('/payments', express.json(), idem, async (req, res) => {
  if (req.body.cents > 100_000) throw new CardDeclined('over the card limit');
  const { rows } = await txOf(req).query(`insert into ${schema}.payments (cents) values ($1) returning *`, [
    req.body.cents,
  ]);
  res.status(201).json(rows[0]);
});
app.use(idem.errors);
app.use((_error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
  res.status(500).json({ code: 'internal' }); // your own error handler: errors not stored end here
});

const server = app.listen(0, '127.0.0.1');
await once(server, 'listening');
const post = (key: string, cents: number) =>
  fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/payments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({ cents }),
  });
try {
  const statuses = [];
  for (const [key, cents] of [
    ['k-1', 1999],
    ['k-1', 1999],
    ['k-2', 500_000],
    ['k-2', 500_000],
  ] as const)
    statuses.push((await post(key, cents)).status);
  const { rows } = await sql.query<{ n: number }>(`select count(*)::int as n from ${schema}.payments`);
  console.log(statuses.join(' '), outcomes.join(' '), rows[0]!.n);
  // prints: 201 201 402 402 executed replayed executed replayed 1
} finally {
  server.close();
  await sql.query(`drop schema ${schema} cascade`);
  await sql.close();
}
