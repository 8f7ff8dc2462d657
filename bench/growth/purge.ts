// Purge while serving: 1 million expired keys purged (Idempotency.purgeExpired) while new keys are
// served 4 at a time; serving p50/p99 before, during, and in the seconds after the purge (when
// autovacuum comes for the dead rows), with the WAL the purge wrote (pg_stat_wal). The purge runs in
// rounds (3 by default), each a before-window and then a purge call for its share of the keys, so the
// ratio is the median of rounds, each against the window just before it, with the before-windows'
// A/A test beside it. bench/growth/run.ts runs it once with the defaults; run alone, it compares
// settings side by side, runs alternating:
//
//   node --conditions=@surety/source --import tsx bench/growth/purge.ts [--runs 2] [--variants main,default]
//     [--keys 1000000] [--rounds 3] [--before-ms 7000] [--wal-compression off]
//
// Variants: `default` (purgeExpired's defaults), `main` (the purge before issue 22, its loop and
// statement copied here: 500 rows a batch, a rest as long as the batch, synchronous commit), or `name=batchSize:100/dutyCycle:0.1/
// asyncCommit:false` for any other options (`s.wal_compression:off`: a server setting for that variant's
// runs, ALTER SYSTEM and reload). Without DATABASE_URL it starts its own cluster (bench/lib/cluster.ts,
// 1 GB shared_buffers) and removes it at the end.
import { loadavg } from 'node:os';
import { createPgSql } from '@surety/db';
import { printPurgeTables } from './purge-report.js';
import { type PurgeRun, purgeWhileServing } from './purge-serve.js';
import { parseVariant } from './purge-variants.js';

// The parts, for whoever imported them from here: the run (purge-serve.ts), the server's diagnostics
// (purge-sample.ts), the variants (purge-variants.ts), and the report (purge-report.ts).
export { describeDiagnostics } from './purge-report.js';
export type { Diagnostics } from './purge-sample.js';
export { type PurgeRound, type PurgeRun, purgeWhileServing } from './purge-serve.js';
export { PURGE_VARIANTS, type PurgeVariant, parseVariant } from './purge-variants.js';

if (import.meta.url === `file://${process.argv[1]}`) {
  const { args } = await import('../lib/stats.js');
  const a = args();
  const runs = a.num('runs', 2);
  const rounds = a.num('rounds', 3);
  const keys = a.num('keys', 1_000_000);
  const beforeMs = a.num('before-ms', 7000);
  const variants = (a.str('variants') ?? 'main,default').split(',').map(parseVariant);
  const load = loadavg()[0]!;
  let url = process.env.DATABASE_URL;
  let stop = () => {};
  if (!url) {
    const { startCluster } = await import('../lib/cluster.js');
    const walCompression = a.str('wal-compression');
    const cluster = await startCluster({
      sharedBuffersMB: 1024,
      ...(walCompression ? { settings: { wal_compression: walCompression } } : {}),
    });
    stop = () => cluster.stop();
    process.once('SIGINT', () => {
      stop();
      process.exit(130);
    });
    url = await cluster.createDatabase('bench');
  }
  // A variant's server settings, for its runs only: ALTER SYSTEM, reload, and back afterwards.
  const setServer = async (settings: Record<string, string>) => {
    const admin = createPgSql({ connectionString: url, max: 1 });
    try {
      const was: Record<string, string> = {};
      for (const [k, v] of Object.entries(settings)) {
        was[k] = (await admin.query<{ s: string }>('select current_setting($1) as s', [k])).rows[0]!.s;
        await admin.query(`alter system set ${k} = '${v}'`);
      }
      await admin.query('select pg_reload_conf()');
      await new Promise((r) => setTimeout(r, 500));
      return was;
    } finally {
      await admin.close();
    }
  };
  const results: PurgeRun[] = [];
  try {
    for (let run = 0; run < runs; run++) {
      const order = run % 2 === 0 ? variants : [...variants].reverse();
      for (const [name, v] of order) {
        const was = v.settings ? await setServer(v.settings) : undefined;
        try {
          results.push(
            await purgeWhileServing(url, name, v.options, {
              keys,
              rounds,
              beforeMs,
              log: console.error,
              ...(v.reloptions ? { reloptions: v.reloptions } : {}),
              ...(v.vacuumAfter ? { vacuumAfter: true } : {}),
            }),
          );
        } finally {
          if (was) await setServer(was);
        }
      }
    }
  } finally {
    stop();
  }
  printPurgeTables(
    results,
    variants.map(([name]) => name),
    { keys, rounds, beforeMs, runs, load },
  );
}
