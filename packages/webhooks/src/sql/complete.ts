// Batch completion of a worker's outcomes (outcome-writer.ts decides what goes in a batch).
import type { Queryable } from '@surety/db';
import type { Names } from './schema.js';

export function completeStatements({ D, A, st }: Names) {
  // Batch completion: one statement for a whole batch of outcomes, fenced by locked_by, plus the
  // attempt records. Per-delivery statements are not affordable at thousands a second. The outcomes
  // ($2) and the attempts ($5) come as one jsonb array of tuples each (`completeDeliveries`; sent
  // as text, which postgres.js does not serialise again): the driver's escaping of sixteen text
  // arrays was the worker's largest cost of its own per delivery, and PostgreSQL reads one jsonb
  // faster than sixteen arrays (docs/decisions.md, "Session 19"). `d.id = any ($3)` (the outcomes'
  // ids again) lets the planner prune the deliveries to the windows these ids fall in (issue 22):
  // the join alone is pruned only while it runs, after every window was planned.
  const complete = (onConflict: string) =>
    `with r as (
         select e->>0 as id, e->>1 as outcome, (e->>2)::timestamptz as next_at, (e->>3)::int as http_status,
                e->>4 as error_code
           from jsonb_array_elements($2::text::jsonb) e),
       upd as (
         update ${D} d set
           status = case when r.outcome in ('retry', 'defer', 'throttled') then 'pending' else r.outcome end,
           next_attempt_at = coalesce(r.next_at, d.next_attempt_at),
           -- a throttled answer (429/503) is recorded below but does not spend the delivery's attempt
           attempts = case when r.outcome in ('defer', 'throttled') then d.attempts - 1 else d.attempts end,
           completed_at = case when r.outcome in ('retry', 'defer', 'throttled') then null else $1::timestamptz end,
           last_status = case when r.outcome = 'defer' then d.last_status else r.http_status end,
           last_error = case when r.outcome = 'defer' then d.last_error else r.error_code end,
           locked_by = null, lease_until = null
         from r where d.id = r.id and d.id = any ($3::text[]) and d.locked_by = $4
         returning d.id, d.status),
       att as (
         insert into ${A} (delivery_id, tenant, attempt, started_at, duration_ms, status, response_excerpt,
                           error_code, error_message, endpoint_id, id)
         select e->>0, e->>1, (e->>2)::int, (e->>3)::timestamptz, (e->>4)::int, (e->>5)::int, e->>6, e->>7,
                e->>8, e->>9, e->>10
           from jsonb_array_elements($5::text::jsonb) e
         ${onConflict}
         returning 1)
       select (select count(*) from upd)::int as completed, (select count(*) from att)::int as attempts,
              -- the deliveries this batch failed for good (operational events: delivery.failed)
              array(select u.id from upd u where u.status = 'failed') as failed`;
  return {
    complete: st('complete', complete('')),
    // The same batch written again after a write whose answer never came (the statement may have
    // committed before the connection dropped): the attempts recorded under these ids are skipped,
    // so none is recorded twice (their ids are made once, outcome-writer.ts). The update needs
    // nothing: locked_by, which the first write cleared, fences it. Only for such a batch: checking
    // every attempt's id costs ~5 µs per delivery (a speculative insert; docs/decisions.md).
    completeAgain: st('complete_again', complete('on conflict (id) do nothing')),
    // A claim whose answer was lost (its COMMIT succeeded, the connection dropped before the reply;
    // a primary crashing after its synchronous standby flushed): its rows ($3, the take returned them
    // before COMMIT was sent) are leased to this worker ($1), which holds none of them. Each claim of
    // a worker has a lease end of its own ($2; strictly increasing), so the pair fences exactly the
    // lost claim's rows: not this worker's other claims', not another worker's, not a row completed
    // or re-claimed since. Given back as a deferral is: due now, the claim's attempt uncounted.
    // Looked up by id (status under collation "C", as in the take: the primary key, not a pending index).
    giveBack: st(
      'give_back',
      `update ${D} d set locked_by = null, lease_until = null, attempts = greatest(d.attempts - 1, 0)
        where d.id = any ($3::text[]) and d.status collate "C" = 'pending' and d.locked_by = $1
          and d.lease_until = $2
        returning d.id`,
    ),
  };
}

/**
 * Gives back the rows of this worker's claim that ended (leased) at `leaseUntil` and that it never
 * heard of: its answer was lost. Returns how many.
 */
export async function giveBackClaim(
  q: Queryable,
  st: ReturnType<typeof completeStatements>,
  input: { workerId: string; leaseUntil: string; ids: readonly string[] },
): Promise<number> {
  const { rows } = await q.query(st.giveBack, [input.workerId, input.leaseUntil, input.ids]);
  return rows.length;
}

/**
 * A delivery's outcome as the statement writes it (`defer`: handed back, no attempt counted;
 * `throttled`: an attempt recorded that the delivery does not count).
 */
export interface DeliveryOutcome {
  id: string;
  outcome: 'delivered' | 'retry' | 'failed' | 'throttled' | 'defer';
  nextAt: string | null;
  status: number | null;
  errorCode: string | null;
}

/** One attempt's record. */
export interface AttemptRow {
  deliveryId: string;
  tenant: string;
  attempt: number;
  startedAt: string;
  durationMs: number;
  status: number | null;
  excerpt: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  endpointId: string;
  /**
   * The attempt's id (`att_…`), made once per attempt by whoever keeps the outcome until it is
   * recorded (the outcome writer), so that a batch written `again` (its first answer lost) records
   * it once.
   */
  id: string;
}

/**
 * Completes the deliveries this worker still holds (fenced by `locked_by = workerId`) and inserts the
 * attempt records, in one statement (graphile-worker's `completeJobs`). With `again`, an attempt
 * whose id is recorded already is skipped: a batch written twice records its attempts once.
 */
export async function completeDeliveries(
  q: Queryable,
  st: ReturnType<typeof completeStatements>,
  input: {
    nowIso: string;
    workerId: string;
    outcomes: readonly DeliveryOutcome[];
    attempts: readonly AttemptRow[];
    /** Written before, its answer lost: attempts already recorded (by id) are skipped. */
    again?: boolean;
  },
): Promise<{ completed: number; attempts: number; failed: string[] }> {
  const { outcomes: o, attempts: a } = input;
  const statement = input.again ? st.completeAgain : st.complete;
  const { rows } = await q.query<{ completed: number; attempts: number; failed: string[] }>(statement, [
    input.nowIso,
    JSON.stringify(o.map((c) => [c.id, c.outcome, c.nextAt, c.status, c.errorCode])),
    o.map((c) => c.id),
    input.workerId,
    JSON.stringify(
      a.map((c) => [
        c.deliveryId,
        c.tenant,
        c.attempt,
        c.startedAt,
        c.durationMs,
        c.status,
        c.excerpt,
        c.errorCode,
        c.errorMessage,
        c.endpointId,
        c.id,
      ]),
    ),
  ]);
  return rows[0]!;
}
