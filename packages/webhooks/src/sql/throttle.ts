// Adaptive throttling (issue 37; docs/webhooks.md "Adaptive throttling"): an endpoint that answers
// 429/503, or whose latency climbs, gets its in-flight cap and its rate lowered (multiplicative
// decrease), and both grow back with time (additive increase). The state is in the endpoint's row
// (migration 000020); the current rate and cap are functions of the clock, so recovering writes
// nothing. The claim (claim.ts) and the token bucket (tokens.ts) read them through the expressions
// below: the fairness cap and the rate limit that already existed, lowered, not a parallel gate.
import type { Queryable } from '@surety/db';
import type { Names } from './schema.js';

/** Seconds since the last decrease, as float8, at `now` (a timestamptz expression). */
const since = (e: string, now: string) => `extract(epoch from (${now} - ${e}.throttle_at))::float8`;

/**
 * The endpoint's rate at `now` (deliveries/s): the lower of its own `rate_limit` and, while
 * throttled, the adaptive rate grown by its step per second since the decrease; null: unlimited.
 */
export const effectiveRate = (e: string, now: string) =>
  `case when ${e}.throttle_until > ${now} and ${e}.throttle_rate is not null
        then least(coalesce(${e}.rate_limit::float8, 'infinity'::float8),
                   ${e}.throttle_rate + ${e}.throttle_step * ${since(e, now)})
        else ${e}.rate_limit::float8 end`;

/** The endpoint's in-flight cap at `now`: `max` unless throttled; then its cap plus a slot a second. */
export const effectiveCap = (e: string, now: string, max: string) =>
  `case when ${e}.throttle_until > ${now} and ${e}.throttle_cap is not null
        then least(${max}, ${e}.throttle_cap + floor(${since(e, now)})::int)
        else ${max} end`;

/** The endpoint asked (Retry-After on a 429/503) that nothing be sent before a time that has not come. */
export const paused = (e: string, now: string) => `coalesce(${e}.throttle_pause_until > ${now}, false)`;

export function throttleStatements({ EP, A, st }: Names) {
  return {
    // One decrease per endpoint and `$10` ms at most (the answers of that second reflect the rate
    // before it, as TCP decreases once per round trip), rows locked in key order (no deadlock with
    // the health statement, which locks in the same order). A 429/503 lowers the rate to $6 (β) ×
    // the lower of the current adaptive rate and the 2xx answers the receiver gave in the second
    // before the throttled answer (across every worker: what it accepted; counted back from the
    // answer, not from now, as a loaded worker writes its outcomes late), at least $7; and the cap to β × the current
    // cap, at least 1. Latency climbing lowers only the cap (Little's law: fewer in flight, same
    // rate). The additive step is a tenth of the new rate a second (at least 1), so the rate is back
    // to where it was decreased from after 10 (1 − β) / β seconds whatever its scale. Any signal
    // renews the throttle for $9 ms. Retry-After on the endpoint's answers ($4) pauses it.
    throttle: st(
      'throttle',
      `with h as (
         select * from unnest($1::text[], $2::text[], $3::bool[], $4::timestamptz[], $11::timestamptz[])
           as h(tenant, endpoint_id, throttled, pause_until, at)),
       locked as (
         select e.tenant, e.id, e.throttle_at, e.throttle_until, e.throttle_rate, e.throttle_step,
                e.throttle_cap, e.rate_limit
           from ${EP} e join h on e.tenant = h.tenant and e.id = h.endpoint_id
          order by e.tenant, e.id for update of e),
       c as (
         select l.tenant, l.id, h.throttled, h.pause_until, h.at, l.throttle_step,
                case when l.throttle_until > $5 and l.throttle_rate is not null
                     then l.throttle_rate + l.throttle_step * extract(epoch from ($5 - l.throttle_at))::float8 end as rate_now,
                ${effectiveCap('l', '$5::timestamptz', '$8::int')} as cap_now,
                (l.throttle_until is null or l.throttle_until <= $5
                 or l.throttle_at <= $5::timestamptz - $10::float8 * interval '1 millisecond') as decrease
           from locked l join h on h.tenant = l.tenant and h.endpoint_id = l.id),
       n as (
         select c.*,
                case when not c.decrease then null
                     when c.throttled then greatest($7::float8, $6::float8 * least(coalesce(c.rate_now, 'infinity'::float8),
                       (select count(*) from ${A} a where a.tenant = c.tenant and a.endpoint_id = c.id
                           and a.started_at > c.at - interval '1 second' and a.started_at <= c.at
                           and a.status between 200 and 299)::float8))
                     else c.rate_now end as rate,
                greatest(1, floor($6::float8 * c.cap_now))::int as cap
           from c),
       upd as (
         update ${EP} e set
           throttle_at = case when n.decrease then $5 else e.throttle_at end,
           -- never before a pause ends (the claim reads the pause of throttled rows only)
           throttle_until = greatest($5::timestamptz + $9::float8 * interval '1 millisecond', n.pause_until, e.throttle_pause_until),
           throttle_rate = case when n.decrease then n.rate else e.throttle_rate end,
           throttle_step = case when n.decrease and n.throttled then greatest(1, n.rate / 10)
                                when n.decrease then n.throttle_step else e.throttle_step end,
           throttle_cap = case when n.decrease then n.cap else e.throttle_cap end,
           throttle_max_cap = $8,
           throttle_pause_until = case when n.pause_until > $5 then greatest(e.throttle_pause_until, n.pause_until)
                                       else e.throttle_pause_until end,
           throttle_decreases = e.throttle_decreases + case when n.decrease then 1 else 0 end
           from n where e.tenant = n.tenant and e.id = n.id
          returning e.tenant, e.id, n.decrease as decreased, n.throttled, n.rate, n.cap)
       select * from upd`,
    ),
  };
}

type ThrottleStatements = ReturnType<typeof throttleStatements>;

/** One endpoint's throttle signal from a batch of outcomes. */
export interface ThrottleSignal {
  tenant: string;
  id: string;
  /** A 429 or 503 was among its answers (else: its latency climbed). */
  throttled: boolean;
  /** The latest Retry-After among them, bounded (ISO); null without one. */
  pauseUntil: string | null;
  /** When the latest of them started (ISO); the signal's time for a latency signal. */
  at: string;
}

export interface ThrottleRow {
  tenant: string;
  id: string;
  decreased: boolean;
  throttled: boolean;
  /** The new adaptive rate (deliveries/s); null when only the cap is adaptive. */
  rate: number | null;
  cap: number;
}

/** Records throttle signals, endpoints in key order; returns what each did (see the statement). */
export async function recordThrottle(
  q: Queryable,
  st: ThrottleStatements,
  input: {
    signals: readonly ThrottleSignal[];
    nowIso: string;
    decrease: number;
    minRate: number;
    maxCap: number;
    recoverMs: number;
    guardMs: number;
  },
): Promise<ThrottleRow[]> {
  const s = input.signals;
  const { rows } = await q.query<ThrottleRow>(st.throttle, [
    s.map((x) => x.tenant),
    s.map((x) => x.id),
    s.map((x) => x.throttled),
    s.map((x) => x.pauseUntil),
    input.nowIso,
    input.decrease,
    input.minRate,
    input.maxCap,
    input.recoverMs,
    input.guardMs,
    s.map((x) => x.at),
  ]);
  return rows;
}
