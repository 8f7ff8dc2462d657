// Test plumbing for the SSRF suites: resolvers from a table, a connector that records instead of
// connecting, and one that connects to loopback only. Nothing here can send a packet beyond
// 127.0.0.0/8 or ::1, whatever the guard under test does.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, isIP } from 'node:net';
import { buildConnector } from 'undici';
import type { Connector, Resolver } from '../src/ssrf.js';

export interface Attempt {
  hostname: string;
  host: string | undefined;
  port: string;
  protocol: string;
  servername: string | undefined;
}

/** A connector that records the address it was asked to connect to and fails; never a socket. */
export function recordingConnector(): { connect: Connector; attempts: Attempt[] } {
  const attempts: Attempt[] = [];
  const connect: Connector = (opts, callback) => {
    attempts.push({
      hostname: opts.hostname,
      host: opts.host,
      port: opts.port,
      protocol: opts.protocol,
      servername: opts.servername,
    });
    const err = Object.assign(new Error(`recorder: refused to connect to ${opts.hostname}`), {
      code: 'ECONNREFUSED',
    });
    setImmediate(() => callback(err, null));
  };
  return { connect, attempts };
}

/** True for 127.0.0.0/8 and ::1 (and their IPv4-mapped forms). */
export function isLoopback(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, '').toLowerCase();
  if (a === '::1') return true;
  const v4 = a.startsWith('::ffff:') ? a.slice(7) : a;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

/**
 * A real connector restricted to loopback: the last line of defence of the end-to-end tests. A
 * non-loopback target is recorded in `refused` and fails without a socket.
 */
export function loopbackOnlyConnector(options: { timeout?: number } = {}): {
  connect: Connector;
  connected: string[];
  refused: string[];
} {
  const real = buildConnector({ timeout: options.timeout ?? 5_000 });
  const connected: string[] = [];
  const refused: string[] = [];
  const connect: Connector = (opts, callback) => {
    if (!isLoopback(opts.hostname)) {
      refused.push(opts.hostname);
      setImmediate(() => callback(new Error(`test connector: ${opts.hostname} is not loopback`), null));
      return;
    }
    connected.push(opts.hostname);
    // hand back the socket undici's connector returns, so the guard can destroy it on timeout
    return real(opts, callback);
  };
  return { connect, connected, refused };
}

/** A resolver answering from a table; unknown names get no answer. Counts calls per name. */
export function tableResolver(table: Record<string, string[] | ((call: number) => string[])>): {
  resolver: Resolver;
  calls: Map<string, number>;
} {
  const calls = new Map<string, number>();
  const resolver: Resolver = async (hostname) => {
    const n = (calls.get(hostname) ?? 0) + 1;
    calls.set(hostname, n);
    const entry = table[hostname];
    const answers = typeof entry === 'function' ? entry(n) : (entry ?? []);
    return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolver, calls };
}

export interface TestServer {
  server: Server;
  port: number;
  hits: Array<{ method: string; url: string; host: string | undefined }>;
  close(): Promise<void>;
}

/** An HTTP server on a loopback address that records every request it sees. */
export async function listen(
  host: string,
  port: number,
  handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end('ok'),
): Promise<TestServer> {
  const hits: TestServer['hits'] = [];
  const server = createServer((req, res) => {
    hits.push({ method: req.method ?? '', url: req.url ?? '', host: req.headers.host });
    handler(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Whether this machine can listen on ::1 (some containers have IPv6 disabled). */
export async function ipv6LoopbackAvailable(): Promise<boolean> {
  try {
    const s = await listen('::1', 0);
    await s.close();
    return true;
  } catch {
    return false;
  }
}
