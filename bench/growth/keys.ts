// The growth benchmark's keys step (run.ts): idempotency `execute` for new and stored keys on a small
// and a large key table, rounds alternating between them, and the blocks a stored-key lookup reads.
import type { Sql } from '@surety/db';
import { createIdempotency, type Idempotency } from '@surety/idempotency';
import pg from 'pg';
import { percentile } from '../lib/stats.js';
import { ensureKeys, keyOf } from './load.js';

export const respond = async () => ({
  status: 201,
  headers: { 'content-type': 'application/json' },
  body: '{"ok":true}',
});

/** Latencies (ms) of `n` calls of `once`, `concurrency` at a time. */
async function timed(
  n: number,
  concurrency: number,
  once: (i: number) => Promise<unknown>,
): Promise<number[]> {
  const out: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const t = performance.now();
        await once(i);
        out.push(performance.now() - t);
      }
    }),
  );
  return out;
}

// Rounds alternate which size goes first, so drift on this shared machine hits both alike.
export const sizesInRound = (round: number) =>
  round % 2 === 0 ? (['small', 'large'] as const) : (['large', 'small'] as const);

/**
 * Loads (or reuses) the two key tables, then times `execute` for new and stored keys on each, `samples`
 * in all over `rounds` rounds, 4 at a time; then the blocks a stored-key lookup reads, one at a time.
 */
export async function measureKeys(p: {
  url: string;
  sql: Sql;
  schemas: Record<'small' | 'large', string>;
  large: number;
  samples: number;
  rounds: number;
  /** This run's id, in the keys it writes. */
  run: string;
  log: (s: string) => void;
}) {
  const { url, sql, schemas, run, log } = p;
  const SAMPLES = p.samples;
  const loads: string[] = [];
  const keyCount = { small: 10_000, large: p.large } as const;
  for (const size of ['small', 'large'] as const) {
    const [schema, n] = [schemas[size], keyCount[size]];
    const r = await ensureKeys(url, schema, n, 86_400 * 365, log);
    loads.push(
      `${schema} (${n.toLocaleString('en-US')} keys): ${r.reused ? 'reused' : `loaded in ${r.seconds.toFixed(0)} s`}`,
    );
  }
  const engines: Record<'small' | 'large', Idempotency> = {
    small: createIdempotency({ sql, schema: schemas.small }),
    large: createIdempotency({ sql, schema: schemas.large }),
  };
  const keyLatency: Record<string, { fresh: number[]; replay: number[] }> = {
    small: { fresh: [], replay: [] },
    large: { fresh: [], replay: [] },
  };
  // Samples of all rounds are pooled.
  const keyRounds = p.rounds;
  for (let round = 0; round < keyRounds; round++) {
    for (const size of sizesInRound(round)) {
      const idem = engines[size];
      const n = keyCount[size];
      const per = Math.ceil(SAMPLES / keyRounds);
      await timed(100, 4, (i) =>
        idem.execute({ tenant: 'bench', key: `warm-${run}-${round}-${i}`, fingerprint: 'f' }, respond),
      );
      const fresh = await timed(per, 4, (i) =>
        idem.execute({ tenant: 'bench', key: `g-${run}-${round}-${i}`, fingerprint: 'f' }, respond),
      );
      // Replays of stored keys picked at random over the whole table (cold pages included).
      const replay = await timed(per, 4, async () => {
        const i = Math.floor(Math.random() * n);
        const out = await idem.execute({ tenant: 'bench', key: keyOf(i), fingerprint: 'x' }, respond);
        // in_flight: two of the 4 concurrent samples drew the same key (a birthday collision): also a lookup
        if (out.kind !== 'mismatch' && out.kind !== 'in_flight')
          throw new Error(`expected the stored key ${keyOf(i)} to be found, got ${out.kind}`);
      });
      keyLatency[size]!.fresh.push(...fresh);
      keyLatency[size]!.replay.push(...replay);
      log(
        `keys ${size} round ${round + 1}: new p50 ${percentile(fresh, 50).toFixed(2)} ms p99 ${percentile(fresh, 99).toFixed(2)}; stored p50 ${percentile(replay, 50).toFixed(2)} p99 ${percentile(replay, 99).toFixed(2)}`,
      );
    }
  }
  for (const size of ['small', 'large'] as const)
    await sql.query(
      `delete from ${schemas[size]}.idempotency_keys where key like 'g-%' or key like 'warm-%'`,
    );

  // Where a stored key's time goes as the table grows: blocks read from outside shared_buffers per
  // lookup, and what one such read costs on this machine (track_io_timing), one lookup at a time.
  const io: Record<string, { reads: number; usPerRead: number }> = {};
  {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query('set track_io_timing = on');
    for (const size of ['small', 'large'] as const) {
      const n = keyCount[size];
      let reads = 0;
      let ms = 0;
      const lookups = 400;
      for (let j = 0; j < lookups; j++) {
        const id = engines[size].lockId('bench', keyOf(Math.floor(Math.random() * n)));
        const { rows } = await c.query<{ 'QUERY PLAN': { Plan: Record<string, number> }[] }>(
          `explain (analyze, buffers, format json) select * from ${schemas[size]}.idempotency_keys where lock_id = ${id}`,
        );
        const plan = rows[0]!['QUERY PLAN'][0]!.Plan;
        reads += plan['Shared Read Blocks'] ?? 0;
        ms += plan['I/O Read Time'] ?? 0;
      }
      io[size] = { reads: reads / lookups, usPerRead: reads ? (ms * 1000) / reads : 0 };
    }
    await c.end();
    log(
      `stored-key lookup: ${io['small']!.reads.toFixed(2)} vs ${io['large']!.reads.toFixed(2)} blocks read per lookup, ${io['large']!.usPerRead.toFixed(0)} µs a read`,
    );
  }
  return { loads, keyLatency, io };
}
