import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** How long a close waits for answers still leaving (a client that stopped reading is cut then). */
export const FLUSH_ON_CLOSE_MS = 10_000;

/**
 * On close, answers already ended but still leaving reach the client before the server closes.
 * Fastify's close calls Node's server.close(), which destroys every connection it deems idle, and a
 * connection whose response has ended (res.end() called) counts as idle even while most of that
 * response still waits in the socket's buffer (a large answer, a client reading slowly): the client
 * got a truncated answer (test/drain.test.ts: 3.9 MB of 32). This preClose hook, which runs before
 * server.close(), waits until each such answer has been handed to the kernel (`writableFinished`)
 * or its connection has closed, for at most `timeoutMs`. Answers not yet ended are left alone: Node
 * does not close their connections, and they end with `Connection: close` (app.ts).
 */
export function flushAnswersOnClose(app: FastifyInstance, timeoutMs = FLUSH_ON_CLOSE_MS): void {
  const open = new Set<ServerResponse>();
  app.addHook('onRequest', (_request, reply, done) => {
    const res = reply.raw;
    open.add(res);
    res.once('close', () => open.delete(res));
    done();
  });
  app.addHook('preClose', async () => {
    const deadline = Date.now() + timeoutMs;
    const leaving = () => [...open].some((res) => res.writableEnded && !res.writableFinished);
    while (leaving() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  });
}
