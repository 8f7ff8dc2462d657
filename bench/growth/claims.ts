// The growth benchmark's delivery-claim step (run.ts): the claim of 50 deliveries with 10 thousand
// vs 1 million pending, rounds alternating between the sizes, each after a CHECKPOINT.
import type { Sql } from '@surety/db';
import { parseAllowList, Webhooks } from '@surety/webhooks';
import { claimOnce, webhooksInternals } from '@surety/webhooks/testing';
import { percentile } from '../lib/stats.js';
import { sizesInRound } from './keys.js';
import { ensureDeliveries, loadedDueAt } from './load.js';

// Both backlogs are vacuumed (as autovacuum would: this CI server runs with autovacuum off, so dead
// rows of earlier runs would pile up in one and not the other) and each round starts right after a
// CHECKPOINT, so both sizes pay their full-page WAL images. Rounds alternate between the sizes.
export const whSchemas = { small: 'bench_growth_wh_v2_10k', large: 'bench_growth_wh_v2_1m' };

// The claim's fairness parameters (window of 100, no caps: one tenant's backlog), as a worker with
// batches of 50 and the caps opened up runs it: this measures what the claim costs as the table grows.
export const NO_CAPS = [100, 1_000_000, 1_000_000, [], [], []] as const;

/** Loads (or reuses) both backlogs, then times `rounds` × 100 claims of 50 on each. */
export async function measureClaims(p: {
  url: string;
  sql: Sql;
  rounds: number;
  run: string;
  loads: string[];
  log: (s: string) => void;
}) {
  const { url, sql, run, loads, log } = p;
  const claimLatency: Record<string, number[]> = { small: [], large: [] };
  const whs: Record<string, Webhooks> = {};
  for (const [size, n] of [
    ['small', 10_000],
    ['large', 1_000_000],
  ] as const) {
    const r = await ensureDeliveries(url, whSchemas[size], n, 'http://127.0.0.1:9/hooks', log);
    loads.push(
      `${whSchemas[size]} (${n.toLocaleString('en-US')} pending deliveries): ${r.reused ? 'reused' : `loaded in ${r.seconds.toFixed(0)} s`}`,
    );
    whs[size] = new Webhooks({
      sql,
      schema: whSchemas[size],
      allowHttp: true,
      allowList: parseAllowList('127.0.0.1/32'),
    });
    await sql.query(`vacuum analyze ${whSchemas[size]}.webhook_deliveries`);
  }
  const claimRounds = p.rounds;
  for (let round = 0; round < claimRounds; round++) {
    for (const size of sizesInRound(round)) {
      const wh = whs[size]!;
      const D = `${whSchemas[size]}.webhook_deliveries`;
      await sql.query('checkpoint');
      const lease = new Date(Date.now() + 3_600_000).toISOString();
      const lat: number[] = [];
      for (let i = 0; i < 100; i++) {
        // as the worker runs it: in a transaction with the claim's settings (timed)
        const t = performance.now();
        const { rows } = await sql.transaction(
          (tx) => claimOnce(tx, wh, [new Date().toISOString(), 50, lease, `bench-${run}`, ...NO_CAPS]),
          { first: webhooksInternals(wh).st.claimSettings },
        );
        lat.push(performance.now() - t);
        if (rows.length !== 50 || rows.some((r) => r.id === null))
          throw new Error(`claimed ${rows.length} of 50`);
        // then its outcome, as a worker writes it (not timed): a failed attempt, due again in an hour,
        // which moves the rows out of the head of the due index
        await sql.query(
          `update ${D} set next_attempt_at = $2, lease_until = null where id = any ($1::text[]) and locked_by = $3`,
          [rows.map((r) => r.id), lease, `bench-${run}`],
        );
      }
      claimLatency[size]!.push(...lat);
      // Put the claimed rows back in their loaded due order, and vacuum away the versions the claims
      // and this update left, so the schema stays the same backlog for the next round and run.
      await sql.query(
        `update ${D} set next_attempt_at = ${loadedDueAt(D)}, attempts = 0, locked_by = null, lease_until = null where locked_by = $1`,
        [`bench-${run}`],
      );
      await sql.query(`vacuum ${D}`);
      log(
        `delivery claim ${size} round ${round + 1}: p50 ${percentile(lat, 50).toFixed(2)} ms, p99 ${percentile(lat, 99).toFixed(2)}`,
      );
    }
  }
  return claimLatency;
}
