import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openSql } from '@surety/db';
import { createVerifier } from '@surety/webhook-verify';
import { createWebhooks, DeliveryWorker, parseAllowList } from '@surety/webhooks';

const sql = await openSql({ databaseUrl: process.env.DATABASE_URL }); // PGlite when unset
// The SSRF guard refuses private addresses; this example's receiver is on 127.0.0.1, so it is allowed.
const allowList = parseAllowList('127.0.0.1/32');
const webhooks = createWebhooks({ sql, allowHttp: true, allowList });
await webhooks.migrate(); // outbox, deliveries, attempts, endpoints in schema "surety"

// A receiver on 127.0.0.1 that verifies what it gets.
let verify: (body: string, headers: Record<string, string | string[] | undefined>) => Promise<unknown>;
const received = new Promise<string>((resolve) => {
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', async () => {
      await verify(body, req.headers);
      res.writeHead(204).end();
      receiver.close();
      resolve(body);
    });
  });
  receiver.listen(0, '127.0.0.1', async () => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const { secret } = await webhooks.createEndpoint(sql, {
      tenant: 'acme',
      url,
      eventTypes: ['order.shipped'],
    });
    verify = (body, headers) => createVerifier({ secrets: [secret] }).verify(body, headers);
    // The event commits with the business write, or not at all (a true outbox).
    await sql.transaction(async (tx) => {
      await webhooks.publish(tx, { tenant: 'acme', type: 'order.shipped', data: { orderId: 'ord_42' } });
    });
  });
});

const worker = new DeliveryWorker({ webhooks, guard: { allowList, allowHttp: true } });
await worker.start(); // claims with FOR UPDATE SKIP LOCKED, signs, POSTs, retries on a schedule
try {
  console.log('delivered:', await received);
} finally {
  await worker.stop();
  await sql.close();
}
