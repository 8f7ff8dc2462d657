// The effects outbox: an order's receipt email is enqueued in the order's transaction and sent by a
// worker with a key derived from the order's, retried (the same key) until its deadline, and
// recorded with the order's update in one transaction. PostgreSQL (DATABASE_URL) or PGlite.
import { openSql } from '@surety/db';
import { EffectFailedError } from '@surety/idempotency';
import { createEffects, defineEffect } from '@surety/idempotency/effects';

// A mailer that deduplicates on the idempotency key it is given. Its first answer is lost after it
// sent the email (a reset connection): the retry, with the same key, gets the same message back.
const sent = new Map<string, string>();
let lose = 1;
const mailer = {
  async send(to: string, subject: string, options: { idempotencyKey: string }) {
    if (!to.includes('@')) throw new EffectFailedError('invalid_address'); // retrying cannot help
    if (!sent.has(options.idempotencyKey)) sent.set(options.idempotencyKey, `msg_${sent.size + 1}`);
    if (lose-- > 0) throw Object.assign(new Error(`${subject}: socket hang up`), { code: 'ECONNRESET' });
    return { id: sent.get(options.idempotencyKey)! };
  },
};

const schema = `example_effects_${process.pid}`;
// Behind a transaction-mode pooler (Supabase, Neon, RDS Proxy): SURETY_DATABASE_POOLER=transaction.
const sql = await openSql({
  databaseUrl: process.env.DATABASE_URL,
  pooler: process.env.SURETY_DATABASE_POOLER === 'transaction' ? 'transaction' : 'none',
});
const orders = `${schema}.orders`;

const receipt = defineEffect<{ orderId: string; to: string }, { messageId: string }>({
  name: 'order.receipt',
  deadlineMs: 3_600_000, // retried for an hour at most, then `failed` (onFailed records it)
  baseDelayMs: 50,
  maxDelayMs: 1_000,
  run: async ({ payload, derivedKey }) => {
    const message = await mailer.send(payload.to, `Order ${payload.orderId}`, { idempotencyKey: derivedKey });
    return { messageId: message.id };
  },
  // The follow-up write commits with the effect's result, or neither does.
  onSucceeded: async (tx, result, { payload }) => {
    await tx.query(`update ${orders} set receipt = $2 where id = $1`, [payload.orderId, result.messageId]);
  },
  onFailed: async (tx, failure, { payload }) => {
    await tx.query(`update ${orders} set receipt = $2 where id = $1`, [payload.orderId, failure.reason]);
  },
});
const effects = createEffects({ sql, schema, effects: [receipt] });
await effects.migrate();
await sql.query(`create table ${orders} (id text primary key, email text not null, receipt text)`);

try {
  // The business transaction: the order and its receipt effect commit together, or neither.
  await sql.transaction(async (tx) => {
    await tx.query(`insert into ${orders} (id, email) values ($1, $2)`, ['ord_1', 'ada@example.com']);
    await effects.enqueue(tx, {
      tenant: 'acme',
      effect: receipt,
      key: 'ord_1', // the operation's key: the request's Idempotency-Key, or the order's id
      payload: { orderId: 'ord_1', to: 'ada@example.com' },
    });
  });

  const worker = effects.worker({ intervalMs: 20 });
  worker.start();
  const receiptOf = async () =>
    (await sql.query<{ receipt: string | null }>(`select receipt from ${orders} where id = 'ord_1'`)).rows[0]
      ?.receipt;
  for (let i = 0; i < 250 && !(await receiptOf()); i++) await new Promise((r) => setTimeout(r, 20));
  await worker.stop();

  const effect = await effects.find(sql, { tenant: 'acme', effect: 'order.receipt', key: 'ord_1' });
  console.log(
    `${effect?.state} after ${effect?.attempts} attempts; receipt ${await receiptOf()}; sent ${sent.size}`,
  );
  // prints: succeeded after 2 attempts; receipt msg_1; sent 1
} finally {
  await sql.query(`drop schema ${schema} cascade`);
  await sql.close();
}
