// Lease mode with Express: the handler charges a card processor, outside any database transaction.
// Runs on PostgreSQL (DATABASE_URL) or, without it, on the embedded PGlite.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { openSql } from '@surety/db';
import {
  createIdempotency,
  deriveKey,
  fingerprint,
  outcomeResponse,
  PROBLEM_CONTENT_TYPE,
  type Problem,
  problemBody,
  readKey,
  type StoredResponse,
} from '@surety/idempotency';
import express from 'express';

// A card processor that deduplicates on the idempotency key it is given, as Stripe's API does.
const charges = new Map<string, { id: string; cents: number }>();
const psp = {
  async charge(cents: number, options: { idempotencyKey: string }) {
    const charge = charges.get(options.idempotencyKey) ?? { id: `ch_${charges.size + 1}`, cents };
    charges.set(options.idempotencyKey, charge);
    return charge;
  },
};

const schema = `example_lease_${process.pid}`;
// Behind a transaction-mode pooler (Supabase, Neon, RDS Proxy): SURETY_DATABASE_POOLER=transaction.
const sql = await openSql({
  databaseUrl: process.env.DATABASE_URL,
  pooler: process.env.SURETY_DATABASE_POOLER === 'transaction' ? 'transaction' : 'none',
});
const engine = createIdempotency({ sql, schema });
await engine.migrate();

/** A stored response as it was, or a Problem as application/problem+json with its headers (Retry-After). */
function send(res: express.Response, answer: StoredResponse | Problem) {
  if ('body' in answer) {
    res.status(answer.status).set(answer.headers).send(answer.body);
  } else {
    res.status(answer.status).set(answer.headers).type(PROBLEM_CONTENT_TYPE).send(problemBody(answer));
  }
}

const app = express();
app.post('/charges', express.json(), async (req, res) => {
  // 400 idempotency_key_missing or idempotency_key_invalid, before anything is stored.
  const read = readKey(req.headers['idempotency-key'], true);
  if (read.kind === 'problem') return send(res, read.problem);
  const key = read.key!;
  const request = {
    tenant: 'acme',
    key,
    fingerprint: fingerprint({ method: 'POST', url: req.originalUrl, body: req.body }),
  };
  const outcome = await engine.withLease(request, async () => {
    // deriveKey (from @surety/idempotency): the same downstream key on every retry of this request.
    const charge = await psp.charge(req.body.cents, { idempotencyKey: deriveKey(key, 'charge') });
    return { status: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify(charge) };
  });
  // executed: the handler's answer; otherwise the stored one replayed (Idempotent-Replayed: true),
  // 409 idempotency_key_in_use with Retry-After, or 422 idempotency_key_reused.
  send(res, outcome.kind === 'executed' ? outcome.response : outcomeResponse(outcome));
});

const server = app.listen(0, '127.0.0.1');
await once(server, 'listening');
const post = (key: string | undefined, cents: number) =>
  fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/charges`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
    body: JSON.stringify({ cents }),
  });
try {
  const first = await post('charge-1', 1999);
  const retry = await post('charge-1', 1999);
  const reused = await post('charge-1', 5);
  const missing = await post(undefined, 1999);
  const problem = (await reused.json()) as { code: string };
  const replayed = retry.headers.get('idempotent-replayed');
  console.log(
    first.status,
    replayed,
    reused.status,
    problem.code,
    missing.status,
    `charges: ${charges.size}`,
  );
  // prints: 201 true 422 idempotency_key_reused 400 charges: 1
} finally {
  server.close();
  await sql.query(`drop schema ${schema} cascade`);
  await sql.close();
}
