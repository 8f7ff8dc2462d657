// One Surety delivery worker in its own process, as `surety worker` runs it, for the latency curve
// (publisher and worker in separate processes, as an API and its workers are) and the scale-out
// benchmark. env: DATABASE_URL, SCHEMA, CONCURRENCY (64), BATCH (100). Prints "ready <id>" on stdout;
// SIGTERM finishes attempts in flight and exits.
import { createPgSql } from '@surety/db';
import { DeliveryWorker, parseAllowList, Webhooks } from '@surety/webhooks';

const sql = createPgSql({ connectionString: process.env.DATABASE_URL, max: 4 });
const webhooks = new Webhooks({
  sql,
  schema: process.env.SCHEMA!,
  allowHttp: true,
  allowList: parseAllowList('127.0.0.1/32'),
});
const worker = new DeliveryWorker({
  webhooks,
  concurrency: Number(process.env.CONCURRENCY ?? 64),
  batchSize: Number(process.env.BATCH ?? 100),
  listen: true,
  guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
});
worker.on('worker:error', (e) => process.stderr.write(`worker error: ${e.message}\n`));
await worker.start();
process.stdout.write(`ready ${worker.id}\n`);
process.on('SIGTERM', () => {
  worker
    .stop()
    .then(() => sql.close())
    .then(() => process.exit(0));
});
