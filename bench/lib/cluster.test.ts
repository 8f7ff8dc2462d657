// The benchmark's own cluster starts with the settings docs/operations.md recommends, answers, and
// leaves nothing behind when stopped: no directory, no process, no listening port.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { test } from 'node:test';
import pg from 'pg';
import { clusterUnavailable, startCluster } from './cluster.js';

const why = clusterUnavailable();

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

const postgresProcessesFor = (dir: string) => {
  try {
    return execFileSync('pgrep', ['-f', dir], { encoding: 'utf8' }).trim();
  } catch {
    return ''; // pgrep exits 1 when nothing matches
  }
};

test('the bench cluster starts as configured and is removed without a trace', {
  skip: why,
  timeout: 120_000,
}, async () => {
  const cluster = await startCluster({ sharedBuffersMB: 64 });
  try {
    assert.ok(existsSync(cluster.dir));
    assert.equal(await portOpen(cluster.port), true);
    const settings = await cluster.settings();
    assert.equal(settings['autovacuum'], 'on');
    assert.equal(settings['shared_buffers'], '64MB');
    // full-page images compressed: a purge's or a bulk write's first touch of each page after a checkpoint
    assert.equal(settings['wal_compression'], 'lz4');
    assert.match(settings['shared_preload_libraries'] ?? '', /pg_stat_statements/);
    const url = await cluster.createDatabase('bench_check');
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query('select pg_stat_statements_reset()');
      await c.query('select 1 + 1 as two');
      const { rows } = await c.query<{ n: string }>(
        "select count(*) as n from pg_stat_statements where query like 'select $1 + $2%'",
      );
      assert.equal(Number(rows[0]!.n), 1, 'pg_stat_statements records statements');
    } finally {
      await c.end();
    }
    assert.notEqual(postgresProcessesFor(cluster.dir), '');
  } finally {
    cluster.stop();
    cluster.stop(); // twice is harmless
  }
  assert.equal(existsSync(cluster.dir), false, 'the directory is removed');
  assert.equal(await portOpen(cluster.port), false, 'nothing listens on the port');
  assert.equal(postgresProcessesFor(cluster.dir), '', 'no server process is left');
});
