#!/usr/bin/env node
// A private PgBouncer in transaction mode on a loopback port, in front of one PostgreSQL database:
// what the pooler tests and CI (.ci/run) run the suites through. Debian's package (1.18, no
// prepared-statement tracking) is the one hosted poolers behave like by default.
//   node scripts/pgbouncer.mjs start <database-url> [port]   daemon; prints the env to export
//   node scripts/pgbouncer.mjs stop <pidfile>
// Tests import `startPgBouncer` (a child process they stop) and `pgbouncerMissing` (a skip reason).
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BINARY = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer'];

function binary() {
  for (const path of BINARY) {
    try {
      execFileSync(path, ['--version'], { stdio: 'ignore' });
      return path;
    } catch {}
  }
  return undefined;
}

// PgBouncer refuses to run as root: as root it runs as the `postgres` OS user.
const asRoot = () => process.getuid?.() === 0;

/** Why PgBouncer cannot run here (a test's skip reason), or false. */
export function pgbouncerMissing() {
  if (!binary()) return 'needs pgbouncer (apt-get install pgbouncer; .ci/run installs it)';
  if (asRoot()) {
    try {
      execFileSync('runuser', ['-u', 'postgres', '--', 'true'], { stdio: 'ignore' });
    } catch {
      return 'pgbouncer refuses to run as root and the postgres OS user is not there';
    }
  }
  return false;
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function configure(databaseUrl, port, { daemon }) {
  const target = new URL(databaseUrl);
  const host = target.hostname || '127.0.0.1';
  if (!/^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/.test(host)) throw new Error(`loopback only: ${host}`);
  const user = decodeURIComponent(target.username || 'postgres');
  const dir = mkdtempSync(join(tmpdir(), 'surety-pgbouncer-'));
  chmodSync(dir, 0o777);
  const pidfile = join(dir, 'pgbouncer.pid');
  // `auth_type = trust` still needs the user in the auth file; the server behind is trust too.
  writeFileSync(join(dir, 'users.txt'), `"${user}" ""\n`);
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${host.replace(/^\[|\]$/g, '')} port=${target.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 1000',
      'default_pool_size = 40',
      'ignore_startup_parameters = extra_float_digits,options,statement_timeout',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      ...(daemon ? [`pidfile = ${pidfile}`] : []),
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
  );
  for (const f of ['users.txt', 'pgbouncer.ini']) chmodSync(join(dir, f), 0o644);
  const url = new URL(databaseUrl);
  url.host = `127.0.0.1:${port}`;
  return { dir, pidfile, ini: join(dir, 'pgbouncer.ini'), url: url.toString() };
}

const command = (args) =>
  asRoot() ? ['runuser', ['-u', 'postgres', '--', ...args]] : [args[0], args.slice(1)];

async function waitForPort(port, ms) {
  const until = Date.now() + ms;
  for (;;) {
    const open = await new Promise((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > until) throw new Error(`pgbouncer did not listen on 127.0.0.1:${port} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Starts PgBouncer (transaction mode) in front of `databaseUrl`'s server; `url` is the same database
 * through it. `stop()` ends the process and removes its directory.
 */
export async function startPgBouncer({ databaseUrl, port }) {
  const path = binary();
  if (!path) throw new Error('pgbouncer is not installed');
  const listenPort = port ?? (await freePort());
  const { dir, ini, url } = configure(databaseUrl, listenPort, { daemon: false });
  const [cmd, args] = command([path, ini]);
  const child = spawn(cmd, args, { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await Promise.race([
      waitForPort(listenPort, 10_000),
      exited.then(() => {
        throw new Error(`pgbouncer exited: ${readFileSync(join(dir, 'pgbouncer.log'), 'utf8').slice(-500)}`);
      }),
    ]);
  } catch (error) {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    port: listenPort,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        // runuser passes SIGTERM on to pgbouncer; SIGINT is its "safe shutdown" that waits for clients.
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [verb, arg, port] = process.argv.slice(2);
  if (verb === 'start' && arg) {
    const path = binary();
    if (!path) {
      console.error('pgbouncer is not installed');
      process.exit(3);
    }
    const listenPort = Number(port) || (await freePort());
    const { pidfile, ini, url } = configure(arg, listenPort, { daemon: true });
    const [cmd, args] = command([path, '-d', ini]);
    execFileSync(cmd, args, { stdio: 'inherit' });
    await waitForPort(listenPort, 10_000);
    console.log(`SURETY_TEST_POOLER_URL=${url}`);
    console.log(`SURETY_TEST_POOLER_PIDFILE=${pidfile}`);
  } else if (verb === 'stop' && arg) {
    try {
      process.kill(Number(readFileSync(arg, 'utf8').trim()), 'SIGTERM');
    } catch {}
  } else {
    console.error('usage: pgbouncer.mjs start <database-url> [port] | stop <pidfile>');
    process.exit(2);
  }
}
