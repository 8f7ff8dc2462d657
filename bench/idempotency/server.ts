// One service process for the idempotency benchmark: the real app, with POST /v1/payments either
// through the idempotency layer (IDEMPOTENCY=on) or the same transaction without a key (off).
import { openSql } from '@surety/db';
import { buildApp, parseApiKeys, runMigrations } from 'surety';

// Measured as deployed: the engine's development-only guard (warnOnEmptyTransaction) stays off.
process.env.NODE_ENV ??= 'production';
const schema = process.env.BENCH_SCHEMA ?? 'bench_idem';
const sql = await openSql({ databaseUrl: process.env.DATABASE_URL, max: Number(process.env.POOL ?? 10) });
await runMigrations(sql, schema);
const app = await buildApp({
  sql,
  config: {
    apiKeys: parseApiKeys('bench:sk_bench_0123456789abcdef'),
    bodyLimit: 65_536,
    idempotencyTtlMs: 86_400_000,
    schema,
  },
  idempotentPayments: process.env.IDEMPOTENCY !== 'off',
});
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ url })}\n`);
process.on('SIGTERM', () => {
  app
    .close()
    .then(() => sql.close())
    .then(() => process.exit(0));
});
