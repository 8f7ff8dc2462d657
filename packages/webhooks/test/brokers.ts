// Brokers for the destination tests, on loopback only: the shared services (RabbitMQ 5672, NATS
// 4222, Mosquitto 1883, started by .ci/run), private NATS and Mosquitto instances on a free port
// that a test may stop and restart, and a TCP proxy in front of the shared RabbitMQ that a test
// cuts and restores to stop it (a private RabbitMQ node is too heavy to start per test). Consumers
// read what arrived with each broker's own client.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Whether something answers on 127.0.0.1:port. */
export function listening(port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = tcpConnect({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

/** Whether `command` is on PATH. */
export function installed(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A free loopback port (listen on 0, close). */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitListening(port: number, up: boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if ((await listening(port, 300)) === up) return;
    await sleep(50);
  }
  throw new Error(`127.0.0.1:${port} did not ${up ? 'start' : 'stop'} within ${timeoutMs} ms`);
}

/** A broker process of the test's own, stopped and started at will on the same port and data. */
export interface PrivateBroker {
  port: number;
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  close(): Promise<void>;
}

function privateBroker(
  command: string,
  args: (port: number, dir: string) => string[],
  scheme: string,
  signal: NodeJS.Signals = 'SIGKILL',
) {
  return async (setup?: (dir: string, port: number) => void): Promise<PrivateBroker> => {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), `surety-${command}-`));
    setup?.(dir, port);
    let child: ChildProcess | undefined;
    const b: PrivateBroker = {
      port,
      url: `${scheme}://127.0.0.1:${port}`,
      async start() {
        child = spawn(command, args(port, dir), { stdio: 'ignore' });
        await waitListening(port, true);
      },
      async stop() {
        const c = child;
        child = undefined;
        if (!c || c.exitCode !== null) return;
        const exited = new Promise((r) => c.once('exit', r));
        c.kill(signal);
        await exited;
        await waitListening(port, false);
      },
      async close() {
        await b.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
    await b.start();
    return b;
  };
}

/** nats-server with JetStream, its store in a temporary directory; `auth` requires a user. */
export const privateNats = (auth?: { user: string; pass: string }) =>
  privateBroker(
    'nats-server',
    (port, dir) => [
      '-a',
      '127.0.0.1',
      '-p',
      String(port),
      '-js',
      '-sd',
      dir,
      ...(auth ? ['--user', auth.user, '--pass', auth.pass] : []),
    ],
    'nats',
  )();

/** mosquitto on 127.0.0.1; with `auth`, a password file and no anonymous clients. */
export const privateMosquitto = (auth?: { user: string; pass: string }) =>
  // SIGTERM: mosquitto saves its sessions (the test subscriber's) on the way down.
  privateBroker(
    'mosquitto',
    (_port, dir) => ['-c', join(dir, 'mosquitto.conf')],
    'mqtt',
    'SIGTERM',
  )((dir, port) => {
    // `user root`: run as root (CI), mosquitto would drop to its own user, who cannot read the test's 0700 directory.
    const lines = [
      'user root',
      `listener ${port} 127.0.0.1`,
      'persistence true',
      `persistence_location ${dir}/`,
    ];
    if (auth) {
      const file = join(dir, 'passwd');
      writeFileSync(file, '');
      execFileSync('mosquitto_passwd', ['-b', file, auth.user, auth.pass]);
      lines.push('allow_anonymous false', `password_file ${file}`);
    } else lines.push('allow_anonymous true');
    writeFileSync(join(dir, 'mosquitto.conf'), `${lines.join('\n')}\n`);
  });

/** A TCP proxy on 127.0.0.1 to 127.0.0.1:`target`; `cut()` refuses and drops, `restore()` serves again. */
export async function tcpProxy(target: number) {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const port = await freePort();
  const listen = async () => {
    server = createServer((client) => {
      const upstream = tcpConnect({ host: '127.0.0.1', port: target });
      sockets.add(client).add(upstream);
      client.pipe(upstream).pipe(client);
      const end = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
    });
    await new Promise<void>((r) => server!.listen(port, '127.0.0.1', r));
  };
  await listen();
  const proxy = {
    port,
    async cut() {
      const s = server;
      server = undefined;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      if (s) await new Promise<void>((r) => s.close(() => r()));
    },
    async restore() {
      if (!server) await listen();
    },
    close: () => proxy.cut(),
  };
  return proxy;
}

/** A private CA and a server certificate for `name` it signed, made with openssl in `dir`. */
export function tlsFiles(dir: string, name: string): { ca: string; cert: string; key: string } {
  const f = (n: string) => join(dir, n);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  ssl(
    ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=surety-test-ca'],
    ...['-keyout', f('ca.key'), '-out', f('ca.pem')],
  );
  ssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    f('server.key'),
    '-out',
    f('server.csr'),
  );
  writeFileSync(f('san.ext'), `subjectAltName=DNS:${name}\n`);
  ssl(
    ...['x509', '-req', '-in', f('server.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key')],
    ...['-CAcreateserial', '-days', '1', '-extfile', f('san.ext'), '-out', f('server.pem')],
  );
  return { ca: f('ca.pem'), cert: f('server.pem'), key: f('server.key') };
}

/**
 * mosquitto with a TLS listener on `port` (certificate for `name`) and a plain one on `plainPort`
 * for the test's consumer.
 */
export async function privateMosquittoTls(name: string) {
  const plainPort = await freePort();
  let ca = '';
  const b = await privateBroker(
    'mosquitto',
    (_port, dir) => ['-c', join(dir, 'mosquitto.conf')],
    'mqtts',
    'SIGTERM',
  )((dir, port) => {
    const files = tlsFiles(dir, name);
    ca = files.ca;
    const lines = [
      'user root',
      'allow_anonymous true',
      `listener ${port} 127.0.0.1`,
      `certfile ${files.cert}`,
      `keyfile ${files.key}`,
      `listener ${plainPort} 127.0.0.1`,
    ];
    writeFileSync(join(dir, 'mosquitto.conf'), `${lines.join('\n')}\n`);
  });
  await waitListening(plainPort, true);
  return { ...b, plainPort, ca };
}

/** nats-server with JetStream that speaks TLS only (certificate for `name`). */
export async function privateNatsTls(name: string) {
  let ca = '';
  const b = await privateBroker(
    'nats-server',
    (port, dir) => [
      ...['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir],
      ...['--tls', '--tlscert', join(dir, 'server.pem'), '--tlskey', join(dir, 'server.key')],
    ],
    'tls',
  )((dir) => {
    ca = tlsFiles(dir, name).ca;
  });
  return { ...b, ca };
}
