// CPU per process group: PostgreSQL is one server (its postmaster and what it forked, not another
// cluster's processes), and a backend that exits between the snapshots still counts, through the
// postmaster's reaped children's time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { clusterUnavailable, startCluster } from './cluster.js';
import { type CpuSnapshot, cpuDelta, cpuSnapshot, postgresServer, procStat } from './cpu.js';

test('a reaped child counts once, its time before the first snapshot taken off', () => {
  const before: CpuSnapshot = new Map([
    [1, { group: 'postgres', ms: 100, ppid: 0, reaped: 50 }],
    [2, { group: 'postgres', ms: 30, ppid: 1 }], // exits in between, 40 ms in all
    [3, { group: 'postgres', ms: 10, ppid: 1 }],
    [9, { group: 'client', ms: 5, ppid: 0 }], // exits in between, nobody counts its children: lost
  ]);
  const after: CpuSnapshot = new Map([
    [1, { group: 'postgres', ms: 110, ppid: 0, reaped: 90 }],
    [3, { group: 'postgres', ms: 25, ppid: 1 }],
    [4, { group: 'postgres', ms: 7, ppid: 1 }], // started in between
  ]);
  // postmaster 10 + backend 2's last 10 + backend 3's 15 + backend 4's 7
  assert.deepEqual(cpuDelta(before, after), { postgres: 42 });
  assert.equal(cpuDelta(undefined, after), undefined);
});

test("one server's processes, a closed connection's CPU included", {
  skip: clusterUnavailable(),
  timeout: 120_000,
}, async () => {
  const cluster = await startCluster({ sharedBuffersMB: 64 });
  try {
    const url = await cluster.createDatabase('bench_cpu');
    const classify = await postgresServer(url);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const backend = (await c.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    const postmaster = procStat(backend)!.ppid;
    const before = cpuSnapshot(classify)!;
    assert.equal(before.get(postmaster)?.reaped !== undefined, true, 'the postmaster counts its children');
    assert.equal(before.get(backend)?.group, 'postgres');
    for (const [pid, e] of before)
      assert.ok(pid === postmaster || e.ppid === postmaster, `${pid} belongs to another server`);
    // ~0.3-1 s of one backend's CPU, then the connection closes and its process is reaped.
    await c.query('select count(*) from generate_series(1, 3000000) g where g % 7 = 0');
    const busy = procStat(backend)!.ms - before.get(backend)!.ms;
    assert.ok(busy >= 50, `the query used ${busy} ms`);
    await c.end();
    for (let i = 0; i < 200 && procStat(backend); i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(procStat(backend), undefined, 'the backend exited');
    const after = cpuSnapshot(classify)!;
    const ms = cpuDelta(before, after)!['postgres'] ?? 0;
    assert.ok(ms >= busy, `the server's CPU (${ms} ms) includes the closed backend's ${busy} ms`);
    assert.ok(ms < busy + 2000, `and not its whole life or another server's (${ms} ms)`);
  } finally {
    cluster.stop();
  }
});
