// The delivery backlog and the open circuit breakers, for a metrics scrape (Webhooks.backlog).
import type { Queryable } from '@surety/db';
import type { Names } from './schema.js';

/** Pending deliveries by state, and endpoints with an open breaker, as the database's clock sees them. */
export interface Backlog {
  /** Pending and due now (not in flight). */
  due: number;
  /** Pending, due later (not in flight). */
  scheduled: number;
  /** Claimed by a worker whose lease has not passed. */
  inFlight: number;
  /** Poll endpoints' deliveries their consumers have not acknowledged (due at 'infinity': never claimed). */
  unacknowledged: number;
  /** How long the oldest due delivery has waited; 0 when none is due. */
  oldestDueSeconds: number;
  /** Endpoints whose breaker is open (waiting for its probe) and half open (probe due or in flight). */
  circuits: { open: number; halfOpen: number };
  /** Endpoints under adaptive throttling now, and those of them paused by a Retry-After. */
  throttled: { throttled: number; paused: number };
}

export async function readBacklog(q: Queryable, t: Pick<Names, 'D' | 'EP'>): Promise<Backlog> {
  const { rows } = await q.query<{
    due: number;
    later: number;
    in_flight: number;
    unacked: number;
    oldest: number | null;
  }>(
    // In flight: claimed by a worker whose lease has not passed (not due, whatever next_attempt_at says).
    `select count(*) filter (where next_attempt_at <= now() and not in_flight)::int as due,
            count(*) filter (where next_attempt_at > now() and next_attempt_at <> 'infinity' and not in_flight)::int as later,
            count(*) filter (where next_attempt_at = 'infinity')::int as unacked,
            count(*) filter (where in_flight)::int as in_flight,
            extract(epoch from now() - min(next_attempt_at) filter (where next_attempt_at <= now() and not in_flight))::float8 as oldest
       from (select next_attempt_at, coalesce(lease_until > now(), false) as in_flight
               from ${t.D} where status = 'pending') d`,
  );
  // Open breakers only (a partial index holds them): a handful of rows, whatever the endpoint count.
  const open = await q.query<{ open: number; half_open: number }>(
    `select count(*) filter (where circuit_probe_at > now())::int as open,
            count(*) filter (where circuit_probe_at <= now())::int as half_open
       from ${t.EP} where circuit_opened_at is not null`,
  );
  // Throttled endpoints through their partial index (migration 000020): few rows.
  const th = await q.query<{ throttled: number; paused: number }>(
    `select count(*) filter (where throttle_until > now())::int as throttled,
            count(*) filter (where throttle_until > now() and throttle_pause_until > now())::int as paused
       from ${t.EP} where throttle_until is not null`,
  );
  const r = rows[0]!;
  return {
    due: r.due,
    scheduled: r.later,
    inFlight: r.in_flight,
    unacknowledged: r.unacked,
    oldestDueSeconds: r.oldest ?? 0,
    circuits: { open: open.rows[0]!.open, halfOpen: open.rows[0]!.half_open },
    throttled: { throttled: th.rows[0]!.throttled, paused: th.rows[0]!.paused },
  };
}
