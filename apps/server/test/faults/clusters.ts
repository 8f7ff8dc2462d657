// A primary and a synchronous streaming standby, two private PostgreSQL clusters on loopback ports,
// made with initdb and pg_basebackup as the `postgres` OS user (PostgreSQL refuses to run as root),
// for the failover test. Everything lives in one temporary directory, removed by `destroy()`.
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const BIN = ['/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/17/bin'].find(
  (d) => existsSync(join(d, 'initdb')),
);
const asRoot = process.getuid?.() === 0;

/** Why the clusters cannot be made here (a skip reason), or false. */
export function clustersMissing(): string | false {
  if (!BIN)
    return 'needs PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup) in /usr/lib/postgresql/*/bin';
  if (!asRoot && process.env.USER !== 'postgres')
    return 'needs to run as root (then as the postgres OS user) or as postgres';
  if (asRoot) {
    try {
      execFileSync('runuser', ['-u', 'postgres', '--', 'true'], { stdio: 'ignore' });
    } catch {
      return 'needs the postgres OS user (runuser -u postgres)';
    }
  }
  return false;
}

/** The connection arguments of a client tool for `node`. */
const at = (node: Node) => ['-h', '127.0.0.1', '-p', String(node.port), '-U', 'postgres'];

/** Runs a PostgreSQL binary as the postgres OS user. */
const pg = (tool: string, args: string[], timeoutMs = 60_000) =>
  asRoot
    ? run('runuser', ['-u', 'postgres', '--', join(BIN!, tool), ...args], { timeout: timeoutMs })
    : run(join(BIN!, tool), args, { timeout: timeoutMs });

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface Node {
  port: number;
  dir: string;
}

export interface Pair {
  primary: Node;
  standby: Node;
  /** `postgres://postgres@127.0.0.1:P,127.0.0.1:S/<database>?target_session_attrs=read-write` */
  url(database: string): string;
  /** The one node's URL. */
  urlOf(node: Node, database: string): string;
  /** `pg_ctl stop -m immediate`: the postmaster and its backends end at once, no checkpoint. */
  crash(node: Node): Promise<void>;
  promote(node: Node): Promise<void>;
  destroy(): Promise<void>;
}

/**
 * initdb, start the primary, pg_basebackup the standby, start it, make it synchronous; then create
 * `database` on the primary (replicated).
 */
export async function startPair(database: string): Promise<Pair> {
  const root = mkdtempSync(join(tmpdir(), 'surety-failover-'));
  chmodSync(root, 0o777);
  const primary: Node = { port: await freePort(), dir: join(root, 'primary') };
  const standby: Node = { port: await freePort(), dir: join(root, 'standby') };
  const started: Node[] = [];
  const options = (node: Node) => `-p ${node.port} -k ${root} -c listen_addresses=127.0.0.1`;
  const start = async (node: Node) => {
    await pg('pg_ctl', [
      '-D',
      node.dir,
      '-l',
      `${node.dir}.log`,
      '-o',
      options(node),
      '-w',
      '-t',
      '30',
      'start',
    ]);
    started.push(node);
  };
  const pair: Pair = {
    primary,
    standby,
    url: (db) =>
      `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/${db}?target_session_attrs=read-write`,
    urlOf: (node, db) => `postgres://postgres@127.0.0.1:${node.port}/${db}`,
    crash: async (node) => {
      await pg('pg_ctl', ['-D', node.dir, '-m', 'immediate', '-w', 'stop']);
    },
    promote: async (node) => {
      await pg('pg_ctl', ['-D', node.dir, '-w', '-t', '30', 'promote']);
    },
    async destroy() {
      for (const node of started) {
        await pg('pg_ctl', ['-D', node.dir, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
  try {
    await pg('initdb', ['-D', primary.dir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
    // Acknowledged means on the standby too: a commit waits for its WAL to be flushed there.
    writeFileSync(
      join(primary.dir, 'postgresql.auto.conf'),
      [
        "synchronous_standby_names = '*'",
        'synchronous_commit = on',
        'wal_level = replica',
        'max_wal_senders = 4',
        'fsync = off',
        'full_page_writes = off',
        "shared_buffers = '32MB'",
        'max_connections = 60',
        '',
      ].join('\n'),
    );
    await start(primary);
    await pg('pg_basebackup', [...at(primary), '-D', standby.dir, '-R', '-X', 'stream', '--no-sync']);
    // Promoted, it is alone: it must not wait for a standby of its own (the guarantee above is the
    // old primary's, whose acknowledged commits are all here).
    const auto = join(standby.dir, 'postgresql.auto.conf');
    writeFileSync(
      auto,
      readFileSync(auto, 'utf8').replace(/^synchronous_standby_names.*$/m, "synchronous_standby_names = ''"),
    );
    await start(standby);
    // Synchronous once the standby streams: until then commits on the primary would wait.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const { stdout } = await run('psql', [
        ...at(primary),
        '-Atc',
        "select count(*) from pg_stat_replication where sync_state = 'sync'",
      ]);
      if (stdout.trim() === '1') break;
      if (Date.now() > deadline) throw new Error('the standby did not become synchronous in 30 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    await run('psql', [...at(primary), '-c', `create database "${database}"`]);
    return pair;
  } catch (error) {
    await pair.destroy();
    throw error;
  }
}
