// Fixtures of the receiver-authentication tests: certificates made at test time with the openssl
// CLI (nothing committed), an HTTPS receiver that demands a client certificate, and an OAuth2
// token endpoint that counts its requests; all on loopback, port 0.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';

export interface Pem {
  cert: string;
  key: string;
}

/** A CA, a server certificate for 127.0.0.1 it signs, two client identities it signs and one it does not. */
export interface Pki {
  ca: string;
  server: Pem;
  clientA: Pem;
  clientB: Pem;
  /** Self-signed: the receiver does not trust it. */
  stranger: Pem;
  /** An encrypted key (passphrase "pw") for clientA's certificate. */
  encryptedKeyA: string;
}

/** Makes the test PKI with `openssl` (P-256 keys: fast), in a temporary directory removed afterwards. */
export function makePki(): Pki {
  const dir = mkdtempSync(join(tmpdir(), 'surety-pki-'));
  const ssl = (...args: string[]) =>
    execFileSync('openssl', args, { cwd: dir, stdio: 'pipe', timeout: 20_000 });
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  try {
    ssl(
      'req',
      '-x509',
      ...ec,
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-subj',
      '/CN=surety-test-ca',
      '-days',
      '2',
    );
    const signed = (name: string, ext: string) => {
      writeFileSync(join(dir, `${name}.ext`), ext);
      ssl('req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
      ssl(
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        `${name}.crt`,
        '-days',
        '2',
        '-extfile',
        `${name}.ext`,
      );
      return { cert: read(`${name}.crt`), key: read(`${name}.key`) };
    };
    const server = signed('server', 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
    const clientA = signed('client-a', 'extendedKeyUsage=clientAuth\n');
    const clientB = signed('client-b', 'extendedKeyUsage=clientAuth\n');
    ssl(
      'req',
      '-x509',
      ...ec,
      '-keyout',
      'stranger.key',
      '-out',
      'stranger.crt',
      '-subj',
      '/CN=stranger',
      '-days',
      '2',
    );
    ssl('pkey', '-in', 'client-a.key', '-aes256', '-passout', 'pass:pw', '-out', 'client-a.enc.key');
    return {
      ca: read('ca.crt'),
      server,
      clientA,
      clientB,
      stranger: { cert: read('stranger.crt'), key: read('stranger.key') },
      encryptedKeyA: read('client-a.enc.key'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface Hit {
  /** The client certificate's CN (mTLS), or the Authorization header. */
  who: string | undefined;
  path: string;
  res: ServerResponse;
}

/** A loopback server (HTTPS demanding a client certificate when `tls` is given); `answer` decides. */
export async function startServer(
  answer: (hit: Hit, n: number) => void,
  tls?: { ca: string; server: Pem },
): Promise<{ url: string; port: number; hits: Hit[]; close(): Promise<void> }> {
  const hits: Hit[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      const peer = tls ? (req.socket as TLSSocket).getPeerCertificate() : undefined;
      const hit: Hit = {
        who: peer ? (peer.subject?.CN as string | undefined) : req.headers.authorization,
        path: req.url ?? '/',
        res,
      };
      hits.push(hit);
      answer(hit, hits.length);
    });
  };
  const server = tls
    ? createHttpsServer(
        {
          key: tls.server.key,
          cert: tls.server.cert,
          ca: tls.ca,
          requestCert: true,
          rejectUnauthorized: true,
        },
        handler,
      )
    : createHttpServer(handler);
  server.keepAliveTimeout = 1000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}/hooks`,
    port,
    hits,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Resolves when `cond()` holds, checking every 10 ms; rejects after `timeoutMs`. */
export async function until(cond: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
