import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { formatTable, probe } from '@surety/probe';

// An API that ignores Idempotency-Key: every POST creates another charge.
let next = 1;
const server = createServer((req, res) => {
  req.resume().on('end', () => {
    res.writeHead(201, { 'content-type': 'application/json', location: `/charges/${next}` });
    res.end(JSON.stringify({ id: `ch_${next++}` }));
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/charges`;

const report = await probe({ url, method: 'POST', body: '{"amount":1999}', maxRequests: 20 });
console.log(formatTable(report)); // replay: FAIL (MUST) — the retry charged again
console.log(report.ok ? 'conforms' : 'a MUST failed: `surety-probe` exits 1');
server.close();
