import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFetch } from '@surety/fetch';

// A flaky upstream on 127.0.0.1: 503 twice, then 201.
let calls = 0;
const upstream = createServer((req, res) => {
  calls++;
  if (calls <= 2) return void res.writeHead(503, { 'retry-after': '0' }).end();
  res.writeHead(201, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ key: req.headers['idempotency-key'], attempt: req.headers['surety-attempt'] }));
});
await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1/payments`;

const fetch = createFetch({
  idempotencyKey: 'auto', // a POST gets one key, reused on every retry, so it is safe to retry
  deadlineMs: 10_000, // total time for all attempts
  maxAttempts: 4,
  onRetry: (event) => console.log(`retry ${event.attempt} after ${event.status ?? event.error}`),
});
try {
  const res = await fetch(url, { method: 'POST', body: JSON.stringify({ cents: 1999 }) });
  console.log(res.status, await res.text()); // 201 {"key":"…","attempt":"3"}
} finally {
  await fetch.close();
  upstream.close();
}
