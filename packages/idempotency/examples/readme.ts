import type { AddressInfo } from 'node:net';
import { openSql } from '@surety/db';
import { createIdempotency } from '@surety/idempotency';
import { idempotency } from '@surety/idempotency/express';
import express from 'express';

const sql = await openSql({ databaseUrl: process.env.DATABASE_URL }); // PGlite when unset
const engine = createIdempotency({ sql, ttlMs: 24 * 3600_000 });
await engine.migrate(); // its table, in schema "surety"; safe to run on every start
await sql.query('create table if not exists payments (id serial primary key, cents int not null)');

const app = express();
app.post('/payments', express.json(), idempotency({ engine }), async (req, res) => {
  // req.tx is the transaction the key's record commits in: write the payment on it.
  const { rows } = await req.tx!.query<{ id: number }>(
    'insert into payments (cents) values ($1) returning id',
    [req.body.cents],
  );
  res.status(201).json({ id: rows[0]!.id, cents: req.body.cents });
});

const server = app.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/payments`;
try {
  const key = `order-42-${Date.now()}`;
  for (let i = 0; i < 2; i++) {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ cents: 1999 }),
    });
    // 201 - {"id":1,"cents":1999}, then the same answer with Idempotent-Replayed: true
    console.log(res.status, res.headers.get('idempotent-replayed') ?? '-', await res.text());
  }
} finally {
  server.close();
  await sql.close();
}
