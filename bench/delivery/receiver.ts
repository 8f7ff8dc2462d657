// The webhook receiver for the delivery benchmark, in its own process: answers 204 at once, counts
// requests, and measures publish→arrival latency from the envelope's createdAt (same machine clock).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// RECEIVER_DELAY_MS: how long each answer takes (a real receiver's work; bench/scale).
const DELAY_MS = Number(process.env.RECEIVER_DELAY_MS ?? 0);
let count = 0;
let latencies: number[] = [];
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    count++;
    const body = Buffer.concat(chunks).toString();
    const at = /"createdAt":"([^"]+)"/.exec(body)?.[1];
    if (at) latencies.push(Date.now() - Date.parse(at));
    if (DELAY_MS > 0) setTimeout(() => res.writeHead(204).end(), DELAY_MS);
    else res.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.send!({ port: (server.address() as AddressInfo).port });
});
process.on('message', (m: { cmd: string }) => {
  if (m.cmd === 'count') {
    // Polled every 20 ms while a contender runs in the benchmark's process: the count only, so the
    // poll costs every contender the same few microseconds whatever has been received.
    process.send!({ count });
  } else if (m.cmd === 'stats') {
    process.send!({ count, latencies });
  } else if (m.cmd === 'reset') {
    count = 0;
    latencies = [];
    process.send!({ reset: true });
  } else if (m.cmd === 'exit') {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  }
});
