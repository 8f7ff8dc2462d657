// One service process for the schema-stall benchmark: the real app on PostgreSQL, two tenants.
import { openSql } from '@surety/db';
import { buildApp, parseApiKeys, runMigrations } from 'surety';

process.env.NODE_ENV ??= 'production';
const schema = process.env.BENCH_SCHEMA ?? 'bench_schema_stall';
const sql = await openSql({ databaseUrl: process.env.DATABASE_URL, max: 10 });
await runMigrations(sql, schema);
const app = await buildApp({
  sql,
  config: {
    apiKeys: parseApiKeys('victim:sk_bench_victim_0123456789,hostile:sk_bench_hostile_0123456789'),
    bodyLimit: 65_536,
    idempotencyTtlMs: 86_400_000,
    schema,
  },
});
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ url })}\n`);
process.on('SIGTERM', () => {
  app
    .close()
    .then(() => sql.close())
    .then(() => process.exit(0));
});
