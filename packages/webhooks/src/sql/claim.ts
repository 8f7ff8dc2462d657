// The claim: due deliveries taken in batches with FOR UPDATE SKIP LOCKED under the fairness caps
// and rate limits, and the worker's slot counts (docs/decisions.md, issue 15).
import type { Queryable, Sql } from '@surety/db';
import { type Claimed, type ClaimParams, pickParams, withEndpoints } from './claimed.js';
import { lockId, type Names } from './schema.js';
import { effectiveCap, effectiveRate, paused } from './throttle.js';
import { grantRateLimited, type TokenStatements } from './tokens.js';
import { eventTime } from './values.js';

export { type Claimed, type ClaimParams, pickParams } from './claimed.js';

export function claimStatements({ schema, D, EV, EP, WS, st }: Names) {
  return {
    // Batch claim (graphile-worker's shape): due rows in due order, skipping rows other workers hold;
    // for an ordered endpoint only the head of its queue: its pending row with the lowest sequence
    // (the event's; webhook_deliveries_endpoint_pending), not the lowest id (random within a ms).
    // The claim sets the lease (lease_until) and counts the attempt, so a crashed worker's rows come
    // back when the lease passes. No index covers those columns (nor locked_by): the claim is a HOT
    // update, no index entry, where the page has room (fillfactor 50: for every row; 000022).
    // Fairness (issue 15; docs/decisions.md): attempts in flight are capped per endpoint ($6) and per
    // tenant ($7) across every worker. Each worker's counts per (tenant, endpoint) live in
    // webhook_worker_slots (its own passed in as $8-$10, rewritten here with what it claims); claims
    // are serialised by the advisory lock in `claimSettings`, so each one sees every earlier claim.
    // The walk skips the rows of a full endpoint or tenant, and of a rate-limited endpoint without a
    // token, without claiming them: a held-back backlog costs a read per row (no write) and does not
    // count towards the window ($5, the most claimable rows read). From the window, each endpoint
    // gets at most its room and each tenant its room, and the picks go round-robin across tenants
    // (every tenant's first row, then every tenant's second…; within a tenant, across its endpoints),
    // so one tenant's deep backlog or burst never puts another's due rows behind it.
    // Rows due at the same instant go in sequence order, then a tenant's endpoints in turn (ids are
    // random within a millisecond).
    // Two statements (issue 22): this pick, then the take below, in one transaction under
    // `claimSettings`. The pick reads every partition of the deliveries (pending rows may sit in any
    // window), so it runs on a generic plan: planned once per connection, where a plan for its values
    // re-planned every partition at every claim (2.4 ms at 9 windows, 8.5 ms at 42, growing with the
    // retention). Its plan cannot depend on the statistics: sorts and bitmap scans are off, so the
    // due index is walked in order and the ordered endpoint's head read from its index, whatever the
    // planner's row counts (a generic plan made on empty tables, with no ANALYZE since, as on PGlite,
    // is the same plan); the only sorts left are of the window's rows. The lookups by id are in the
    // take, which is planned for its ids: a generic plan of those chose a sequential scan of a
    // window that was empty when it was planned and large when it ran (49 ms at 20 k rows).
    // One row always: the picked ids in pick order, as the array's text (the take's parameter as it
    // is, neither parsed nor escaped again in the worker; docs/decisions.md, "Session 19"), their
    // events' time range as text (the take reads only those windows; a JS Date would drop
    // microseconds and miss the top event), from the picks' own columns (a join back to the walk
    // looped 200 × 82 rows, twice), and `held`: the tenants a cap held back.
    claim: st(
      'claim',
      `with mine as (
         select * from unnest($7::text[], $8::text[], $9::int[]) as m(tenant, endpoint_id, n)),
       busy as (
         select b.tenant, b.endpoint_id, sum(b.n)::int as n from (
           select m.tenant, m.endpoint_id, m.n from mine m
           union all
           select o.tenant, o.endpoint_id, o.n
             from ${WS} w cross join lateral unnest(w.tenants, w.endpoint_ids, w.counts) as o(tenant, endpoint_id, n)
            where w.worker <> $3 and w.lease_until > $1) b
          group by b.tenant, b.endpoint_id),
       tbusy as (select b.tenant, sum(b.n)::int as n from busy b group by b.tenant),
       -- Rate-limited and throttled endpoints (each through its partial index; sql/throttle.ts): the
       -- tokens in their bucket at the lower of the two rates (none while a Retry-After pauses the
       -- endpoint), and the adaptive in-flight cap, which lowers $5 for that endpoint.
       lim as (
         select e.tenant, e.id, e.rate_tokens, e.rate_at, e.throttle_pause_until, r.rate,
                ${effectiveCap('e', '$1::timestamptz', '$5::int')} as cap
           from (select x.tenant, x.id, x.rate_limit, x.rate_tokens, x.rate_at, x.throttle_at, x.throttle_until,
                        x.throttle_rate, x.throttle_step, x.throttle_cap, x.throttle_pause_until
                   from ${EP} x where x.rate_limit is not null and x.throttle_until is null
                 union all
                 select x.tenant, x.id, x.rate_limit, x.rate_tokens, x.rate_at, x.throttle_at, x.throttle_until,
                        x.throttle_rate, x.throttle_step, x.throttle_cap, x.throttle_pause_until
                   from ${EP} x where x.throttle_until is not null) e
           cross join lateral (select ${effectiveRate('e', '$1::timestamptz')} as rate) r),
       tokens as (
         select l.tenant, l.id as endpoint_id,
                case when ${paused('l', '$1::timestamptz')} then 0
                     else floor(least(l.rate, coalesce(l.rate_tokens, l.rate)
                       + greatest(0, extract(epoch from ($1::timestamptz - coalesce(l.rate_at, $1::timestamptz))))
                         * l.rate))::int end as n
           from lim l where l.rate is not null or ${paused('l', '$1::timestamptz')}),
       caps as (select l.tenant, l.id as endpoint_id, l.cap as n from lim l where l.cap < $5),
       blocked as (
         select b.tenant, b.endpoint_id from busy b left join caps k on k.tenant = b.tenant and k.endpoint_id = b.endpoint_id
          where b.n >= coalesce(k.n, $5)
         union all
         select t.tenant, t.endpoint_id from tokens t where t.n < 1),
       walk as materialized (
         select d.id, d.tenant, d.endpoint_id, d.next_attempt_at, d.sequence, d.event_created_at, d.created_at
           from ${D} d
          where d.status = 'pending' and d.next_attempt_at <= $1
            and (d.lease_until is null or d.lease_until <= $1)
            and (d.tenant, d.endpoint_id) not in (select x.tenant, x.endpoint_id from blocked x)
            and d.tenant not in (select t.tenant from tbusy t where t.n >= $6)
            and (not d.ordered or d.id = (select x.id from ${D} x
                  where x.tenant = d.tenant and x.endpoint_id = d.endpoint_id and x.status = 'pending'
                  order by x.sequence, x.id limit 1))
          order by d.next_attempt_at
          limit $4),
       cand as (
         select w.id, w.tenant, w.endpoint_id, w.next_attempt_at, w.sequence, w.event_created_at, w.created_at,
                least(coalesce(k.n, $5::int) - coalesce(b.n, 0), coalesce(t.n, $5::int)) as room,
                row_number() over (partition by w.tenant, w.endpoint_id order by w.next_attempt_at, w.sequence, w.id) as n
           from walk w
           left join busy b on b.tenant = w.tenant and b.endpoint_id = w.endpoint_id
           left join tokens t on t.tenant = w.tenant and t.endpoint_id = w.endpoint_id
           left join caps k on k.tenant = w.tenant and k.endpoint_id = w.endpoint_id),
       ranked as (
         select c.id, c.tenant, c.next_attempt_at, c.sequence, c.event_created_at, c.created_at, $6::int - coalesce(tb.n, 0) as room,
                row_number() over (partition by c.tenant order by c.n, c.next_attempt_at, c.sequence, c.endpoint_id, c.id) as n
           from cand c left join tbusy tb on tb.tenant = c.tenant
          where c.n <= c.room),
       pick as materialized (
         select r.id, r.event_created_at, r.created_at, row_number() over (order by r.n, r.next_attempt_at, r.sequence, r.id) as ord
           from ranked r where r.n <= r.room
          order by r.n, r.next_attempt_at, r.sequence, r.id
          limit $2)
       select array(select p.id from pick p order by p.ord)::text as ids,
              (select min(coalesce(p.event_created_at, '-infinity')) from pick p)::text as events_from,
              (select max(coalesce(p.event_created_at, p.created_at)) from pick p)::text as events_to,
              array(select b.tenant from busy b left join caps k on k.tenant = b.tenant and k.endpoint_id = b.endpoint_id
                     where b.n >= coalesce(k.n, $5) union select t.tenant from tbusy t where t.n >= $6
                    union select x.tenant from cand x where x.n > x.room
                    union select x.tenant from ranked x where x.n > x.room) as held,
              -- the take, next in this transaction, is planned for its values (no round trip of its own)
              set_config('plan_cache_mode', 'force_custom_plan', true) as take_plans`,
    ),
    // The take (the claim's second statement): the picked rows locked (SKIP LOCKED: a row another
    // transaction holds is left for the next claim), their leases set and attempts counted, this
    // worker's slot counts rewritten, and each row returned with its event and endpoint (an
    // endpoint's columns on its first row only, `endpoint_first`; claimed.ts fills its others).
    // Planned for its values (the pick's set_config): `id = any($1)` and the events' time range are
    // constants then, so the planner prunes both tables to the windows that hold these rows before
    // planning them.
    claimTake: st(
      'claim_take',
      `with mine as (
         select * from unnest($7::text[], $8::text[], $9::int[]) as m(tenant, endpoint_id, n)),
       due as (
         -- status compared under collation "C": the partial indexes' predicate (status = 'pending')
         -- is then not implied, so only the primary key can serve id = any ($1). Without
         -- statistics (a fresh backlog) the planner scanned a whole pending index once per id
         -- (9,150 buffers and 25 ms for 100 ids at 6,000 pending; bench/scale).
         select d.id from ${D} d
          where d.id = any ($1::text[]) and d.status collate "C" = 'pending'
            and (d.lease_until is null or d.lease_until <= $2)
          for update skip locked),
       claimed as (
         update ${D} d set lease_until = $3, attempts = d.attempts + 1, locked_by = $4
          where d.id = any ($1::text[]) and d.id = any (array(select id from due))
         returning d.id, d.tenant, d.endpoint_id, d.event_id, d.attempts, d.event_created_at, d.created_at),
       counts as (
         select k.tenant, k.endpoint_id, sum(k.n)::int as n from (
           select m.tenant, m.endpoint_id, m.n from mine m where m.n > 0
           union all
           select c.tenant, c.endpoint_id, 1 from claimed c) k
          group by k.tenant, k.endpoint_id),
       slots as (
         insert into ${WS} as w (worker, lease_until, tenants, endpoint_ids, counts)
         select $4, $3, coalesce(array_agg(k.tenant order by k.tenant, k.endpoint_id), '{}'),
                coalesce(array_agg(k.endpoint_id order by k.tenant, k.endpoint_id), '{}'),
                coalesce(array_agg(k.n order by k.tenant, k.endpoint_id), '{}')
           from counts k
         on conflict (worker) do update set lease_until = excluded.lease_until, tenants = excluded.tenants,
                endpoint_ids = excluded.endpoint_ids, counts = excluded.counts
          -- unchanged counts are not rewritten until half the lease has passed
          where w.tenants is distinct from excluded.tenants or w.endpoint_ids is distinct from excluded.endpoint_ids
             or w.counts is distinct from excluded.counts
             or w.lease_until < $2::timestamptz + ($3::timestamptz - $2::timestamptz) / 2
         returning 1)
       select c.id, c.tenant, c.endpoint_id, c.attempts, c.event_id, ev.type, ev.api_version,
              ev.created_at, ev.sequence::text as sequence, ev.data, c.endpoint_first,
              ep.url, ep.secrets, ep.format,
              ep.status as endpoint_status, ep.retry_schedule, ${effectiveRate('ep', '$2::timestamptz')} as rate_limit,
              ev.trace_context, ep.trace_context as endpoint_trace_context, ep.headers as endpoint_headers,
              coalesce(ep.kind, 'webhook') as kind, ep.destination, ep.credentials,
              ep.auth as endpoint_auth
         from (select c.*, c.id = min(c.id) over (partition by c.tenant, c.endpoint_id) as endpoint_first
                 from claimed c) c
         left join lateral (select * from ${EV} e where e.tenant = c.tenant and e.id = c.event_id
                              and ${eventTime('e', 'c')}
                              and e.created_at >= $5::timestamptz and e.created_at <= $6::timestamptz
                            limit 1) ev on true
         left join lateral (select * from ${EP} e where c.endpoint_first and e.tenant = c.tenant
                              and e.id = c.endpoint_id limit 1) ep on true
        order by array_position($1::text[], c.id)`,
    ),
    // Session settings the claim runs under (SET LOCAL, in the claim's transaction), and the lock
    // that serialises claims of this schema (each claim's snapshot holds every earlier claim's counts).
    // A claim holds it for its own few milliseconds; completions and publishes never take it. JIT off:
    // the window's sorts carry enable_sort's penalty cost (1e10), far past jit_above_cost, and
    // compiling the claim took ~5 s (measured on PostgreSQL 15) for a statement that runs in ~2 ms.
    // The pick runs on a generic plan, then switches the transaction to plans for their values for
    // the take (set_config in its result: no round trip of its own under the lock).
    // The claim commits without waiting for its WAL flush (synchronous_commit off; the flush was on
    // every claim's path, under the lock): a crash can lose a lease, never an outcome. The rows are
    // due again and sent once more (at least once), and a completion, which waits for its flush,
    // flushes every claim before it (WAL is in order). docs/decisions.md, "Session 16".
    claimSettings: `set local enable_bitmapscan = off; set local enable_sort = off; set local plan_cache_mode = force_generic_plan; set local jit = off; set local synchronous_commit = off; select pg_advisory_xact_lock(${lockId(`surety.webhooks.claim:${schema}`)})`,
    releaseSlots: st('release_slots', `delete from ${WS} where worker = $1`), // a stopped worker's counts
  };
}

type ClaimStatements = ReturnType<typeof claimStatements>;

/** One (tenant, endpoint) and how many attempts this worker holds for it. */
export interface SlotCount {
  tenant: string;
  endpointId: string;
  n: number;
}

/**
 * Claims up to `limit` due deliveries in one transaction (under `claimSettings`), then takes the
 * rate-limited ones' tokens under the same lock. `held`: the tenants a cap held rows back for.
 */
export async function claimDeliveries(
  sql: Sql,
  st: ClaimStatements & TokenStatements,
  input: {
    nowMs: number;
    limit: number;
    leaseUntilMs: number;
    workerId: string;
    claimWindow: number;
    maxInFlightPerEndpoint: number;
    maxInFlightPerTenant: number;
    mine: readonly SlotCount[];
    taken?: (ids: string[]) => void; // the take's ids, before COMMIT is sent (lost-claims.ts)
  },
): Promise<{ rows: Claimed[]; allowed: Set<string>; held: string[] }> {
  const { nowMs, mine } = input;
  return sql.transaction(
    async (tx) => {
      const { rows, held } = await claimIn(tx, st, [
        new Date(nowMs).toISOString(),
        input.limit,
        new Date(input.leaseUntilMs).toISOString(),
        input.workerId,
        input.claimWindow,
        input.maxInFlightPerEndpoint,
        input.maxInFlightPerTenant,
        mine.map((m) => m.tenant),
        mine.map((m) => m.endpointId),
        mine.map((m) => m.n),
      ]);
      input.taken?.(rows.map((r) => r.id));
      return { rows, allowed: await grantRateLimited(tx, st, { rows, nowMs }), held };
    },
    { first: st.claimSettings },
  );
}

/** One claim (pick, then take) in a transaction begun with `claimSettings`; `held`: tenants a cap held back. */
export async function claimIn(
  tx: Queryable,
  st: ClaimStatements,
  params: ClaimParams,
): Promise<{ rows: Claimed[]; held: string[] }> {
  const { rows: picked } = await tx.query<{
    /** The ids as a PostgreSQL array's text (`{dlv_…,dlv_…}`), passed to the take as it is. */
    ids: string;
    /** timestamptz as PostgreSQL prints it: microseconds kept, passed back as text. */
    events_from: string | null;
    events_to: string | null;
    held: string[];
  }>(st.claim, pickParams(params));
  const pick = picked[0]!;
  const [now, , leaseUntil, workerId, , , , tenants, endpointIds, counts] = params;
  const { rows } = await tx.query<Claimed & { endpoint_first: boolean }>(st.claimTake, [
    pick.ids,
    now,
    leaseUntil,
    workerId,
    pick.events_from,
    pick.events_to,
    tenants,
    endpointIds,
    counts,
  ]);
  return { rows: withEndpoints(rows), held: pick.held };
}

/** Deletes a stopped worker's slot counts (its claims are all handed back or recorded). */
export async function releaseSlots(q: Queryable, st: ClaimStatements, input: { workerId: string }) {
  await q.query(st.releaseSlots, [input.workerId]);
}
