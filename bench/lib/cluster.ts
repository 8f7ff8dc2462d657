// The benchmark's own PostgreSQL cluster: initdb on a temporary directory, a free loopback port,
// configured as docs/operations.md recommends for production (autovacuum on, shared_buffers sized for
// the run, wal_compression = lz4, pg_stat_statements loaded), stopped and removed at the end. `npm run bench` uses it unless
// DATABASE_URL names an existing server. PostgreSQL refuses to run as root, so as root the server's
// binaries run as the `postgres` user (runuser), on a directory that user owns.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface ClusterOptions {
  /** shared_buffers in MB; default a quarter of the machine's memory, at most 4096. */
  sharedBuffersMB?: number;
  /** Extra postgresql.conf lines (`name = value`). */
  settings?: Record<string, string>;
}

export interface Cluster {
  /** A connection string to the `postgres` database; `createDatabase` makes others. */
  url: string;
  port: number;
  dir: string;
  createDatabase(name: string): Promise<string>;
  /** The settings that shape the results, read back from the running server. */
  settings(): Promise<Record<string, string>>;
  /** Stops the server (fast shutdown) and removes its directory. Safe to call twice. */
  stop(): void;
}

/** The settings the report prints; what docs/operations.md talks about. */
export const REPORTED_SETTINGS = [
  'server_version',
  'shared_buffers',
  'effective_cache_size',
  'work_mem',
  'maintenance_work_mem',
  'max_connections',
  'autovacuum',
  'autovacuum_naptime',
  'synchronous_commit',
  'fsync',
  'wal_level',
  'max_wal_size',
  'checkpoint_timeout',
  'wal_compression',
  'shared_preload_libraries',
  'track_io_timing',
  'jit',
] as const;

/** Where PostgreSQL's server binaries are: on PATH, or Debian's /usr/lib/postgresql/<major>/bin. */
export function findBinDir(): string | undefined {
  const onPath = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim();
  if (onPath) return onPath.replace(/\/initdb$/, '');
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const majors = readdirSync(base)
    .filter((d) => existsSync(join(base, d, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] ? join(base, majors[0], 'bin') : undefined;
}

/** Why a cluster cannot be started here, or undefined when it can. */
export function clusterUnavailable(): string | undefined {
  if (!findBinDir()) return 'PostgreSQL server binaries (initdb, pg_ctl) are not installed';
  if (process.getuid?.() === 0) {
    const id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    if (id.status !== 0) return 'running as root and there is no postgres user to run the server as';
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const why = clusterUnavailable();
  if (why) throw new Error(`cannot start a PostgreSQL cluster: ${why}`);
  const bin = findBinDir()!;
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) => {
    const [file, argv] = asRoot
      ? ['runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args]]
      : [join(bin, cmd), args];
    return execFileSync(file, argv, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  };
  const dir = mkdtempSync(join(tmpdir(), 'surety-bench-pg-'));
  const data = join(dir, 'data');
  let started = false;
  const stop = () => {
    if (started) {
      started = false;
      try {
        run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
      } catch {
        // already stopped; the directory is removed either way
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (asRoot) {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
      chownSync(dir, uid, gid);
    }
    run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
    const port = await freePort();
    const sharedMB =
      options.sharedBuffersMB ?? Math.min(4096, Math.max(128, Math.floor(totalmem() / 2 ** 20 / 4)));
    const conf: Record<string, string> = {
      listen_addresses: "'127.0.0.1'",
      port: String(port),
      unix_socket_directories: `'${dir}'`,
      max_connections: '200',
      shared_buffers: `'${sharedMB}MB'`,
      effective_cache_size: `'${Math.floor((totalmem() / 2 ** 20) * 0.5)}MB'`,
      work_mem: "'16MB'",
      maintenance_work_mem: "'256MB'",
      autovacuum: 'on',
      max_wal_size: "'4GB'",
      checkpoint_timeout: "'15min'",
      // The first change to a page after a checkpoint logs the whole page: a purge's or a bulk
      // write's WAL is mostly such images, and every commit behind them waits for their flush.
      wal_compression: 'lz4',
      shared_preload_libraries: "'pg_stat_statements'",
      'pg_stat_statements.track': 'top',
      'pg_stat_statements.max': '5000',
      track_io_timing: 'on',
      // Containers often give /dev/shm only 64 MB; mmap'd files under the data directory work anywhere.
      dynamic_shared_memory_type: 'mmap',
      ...options.settings,
    };
    writeFileSync(
      join(data, 'postgresql.auto.conf'),
      `${Object.entries(conf)
        .map(([k, v]) => `${k} = ${v}`)
        .join('\n')}\n`,
    );
    if (asRoot) execFileSync('chown', ['-R', 'postgres:postgres', dir]);
    run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']);
    started = true;
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const query = async <T extends pg.QueryResultRow>(text: string, values?: unknown[]) => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        return (await c.query<T>(text, values)).rows;
      } finally {
        await c.end();
      }
    };
    return {
      url,
      port,
      dir,
      async createDatabase(name: string) {
        if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
        await query(`create database ${name}`);
        const dbUrl = `postgres://postgres@127.0.0.1:${port}/${name}`;
        const c = new pg.Client({ connectionString: dbUrl });
        await c.connect();
        await c.query('create extension if not exists pg_stat_statements');
        await c.end();
        return dbUrl;
      },
      async settings() {
        const rows = await query<{ name: string; setting: string }>(
          'select name, current_setting(name) as setting from pg_settings where name = any($1) order by name',
          [[...REPORTED_SETTINGS]],
        );
        return Object.fromEntries(rows.map((r) => [r.name, r.setting]));
      },
      stop,
    };
  } catch (err) {
    stop();
    throw err;
  }
}
