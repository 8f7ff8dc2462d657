// A small HTTP API that keeps every rule the probe checks, and a switch per rule that breaks it: the
// servers the probe's tests point at (loopback only).
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Break =
  | 'no-replay'
  | 'no-replay-header'
  | 'reuse-replays'
  | 'in-flight-queues'
  | 'in-flight-twice'
  | 'no-retry-after'
  | 'missing-key-422'
  | 'no-key-limit'
  | 'quotes-literal'
  | 'no-304'
  | 'if-match-ignored'
  | 'weak-matches'
  | 'missing-if-match-400'
  | 'always-412';

export interface TestServer {
  url: string;
  /** Requests received, in order. */
  log: { method: string; url: string; at: number }[];
  close(): Promise<void>;
}

interface Stored {
  fingerprint: string;
  done?: { status: number; body: string; location: string };
  finished: Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `delayMs`: how long a create runs. A loaded host, which keeps every rule: `firstPauseMs` holds the
 * first request it ever answers (a pause, as a GC or a busy core makes), and `crowdPauseMs` holds a
 * request that arrives within 5 ms of the one before (sent together: queued on a busy host), before
 * it reaches the handler.
 */
export async function startTestServer(
  options: { break?: Break; delayMs?: number; firstPauseMs?: number; crowdPauseMs?: number } = {},
): Promise<TestServer> {
  const broken = options.break;
  const delayMs = options.delayMs ?? 0;
  let lastArrival = Number.NEGATIVE_INFINITY;
  const keys = new Map<string, Stored>();
  const things = new Map<string, { version: number; body: string }>();
  const log: TestServer['log'] = [];
  let next = 1;

  const send = (res: ServerResponse, status: number, body = '', headers: Record<string, string> = {}) => {
    res.writeHead(status, { ...(body ? { 'content-type': 'application/json' } : {}), ...headers });
    res.end(body);
  };
  const problem = (res: ServerResponse, status: number, code: string, headers: Record<string, string> = {}) =>
    send(res, status, JSON.stringify({ status, code }), {
      ...headers,
      'content-type': 'application/problem+json',
    });
  const etagOf = (id: string) => `"v${things.get(id)!.version}"`;

  async function create(req: IncomingMessage, res: ServerResponse, body: string) {
    const header = req.headers['idempotency-key'];
    if (header === undefined) return problem(res, broken === 'missing-key-422' ? 422 : 400, 'key_missing');
    const raw = String(header);
    const key = broken === 'quotes-literal' ? raw : /^"(.*)"$/.test(raw) ? raw.slice(1, -1) : raw;
    if (key.length === 0 || (key.length > 255 && broken !== 'no-key-limit'))
      return problem(res, 400, 'key_invalid');
    const fingerprint = createHash('sha256').update(body).digest('hex');
    let stored = broken === 'no-replay' ? undefined : keys.get(key);
    if (stored && broken === 'in-flight-queues') await stored.finished;
    if (stored && !stored.done)
      return problem(res, 409, 'in_flight', broken === 'no-retry-after' ? {} : { 'retry-after': '1' });
    if (stored?.done) {
      if (stored.fingerprint !== fingerprint && broken !== 'reuse-replays')
        return problem(res, 422, 'key_reused');
      const replayed: Record<string, string> =
        broken === 'no-replay-header' ? {} : { 'idempotent-replayed': 'true' };
      return send(res, stored.done.status, stored.done.body, { location: stored.done.location, ...replayed });
    }
    let finish = () => {};
    stored = { fingerprint, finished: new Promise<void>((r) => (finish = r)) };
    // With no delay the handler never yields: a duplicate can never find it in flight.
    if (broken === 'in-flight-twice' && delayMs > 0) await sleep(delayMs); // looks the key up, claims it late
    keys.set(key, stored);
    if (broken !== 'in-flight-twice' && delayMs > 0) await sleep(delayMs);
    const id = String(next++);
    things.set(id, { version: 1, body });
    const out = JSON.stringify({ id, ...JSON.parse(body || '{}') });
    stored.done = { status: 201, body: out, location: `/things/${id}` };
    finish();
    send(res, 201, out, { location: `/things/${id}` });
  }

  function resource(req: IncomingMessage, res: ServerResponse, id: string, body: string) {
    const thing = things.get(id);
    if (!thing) return problem(res, 404, 'not_found');
    const etag = etagOf(id);
    if (req.method === 'GET') {
      if (req.headers['if-none-match'] === etag && broken !== 'no-304') return send(res, 304, '', { etag });
      return send(res, 200, thing.body, { etag });
    }
    const ifMatch = req.headers['if-match'];
    if (ifMatch === undefined && broken !== 'if-match-ignored')
      return problem(res, broken === 'missing-if-match-400' ? 400 : 428, 'precondition_required');
    const candidates = (ifMatch ?? '').split(',').map((t) => t.trim());
    const matches =
      broken === 'if-match-ignored' ||
      (broken !== 'always-412' &&
        candidates.some((t) => t === '*' || t === etag || (broken === 'weak-matches' && t === `W/${etag}`)));
    if (!matches) return problem(res, 412, 'precondition_failed');
    if (req.method === 'DELETE') {
      things.delete(id);
      return send(res, 204);
    }
    thing.version += 1;
    thing.body = body;
    send(res, 200, body, { etag: etagOf(id) });
  }

  const server = createServer((req, res) => {
    log.push({ method: req.method ?? '', url: req.url ?? '', at: performance.now() });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    const crowded = performance.now() - lastArrival < 5;
    lastArrival = performance.now();
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const pause =
        log.length === 1 ? (options.firstPauseMs ?? 0) : crowded ? (options.crowdPauseMs ?? 0) : 0;
      if (pause > 0) await sleep(pause);
      const thing = /^\/things\/(\w+)$/.exec(req.url ?? '');
      const work =
        req.method === 'POST' && req.url === '/things'
          ? create(req, res, body)
          : thing
            ? resource(req, res, thing[1]!, body)
            : problem(res, 404, 'not_found');
      Promise.resolve(work).catch(() => problem(res, 500, 'internal'));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
