import { createHash } from 'node:crypto';
import { quoteSchema, type Statement } from '@surety/db';

/** A 64-bit advisory lock id for a name (signed, as pg_advisory_xact_lock takes it). */
const lockId = (name: string) => createHash('sha256').update(name).digest().readBigInt64BE(0).toString();

/** The delivery engine's statements for one schema. Every value is a bound parameter. */
export function statements(schema: string) {
  const s = quoteSchema(schema);
  const EP = `${s}.webhook_endpoints`;
  const EV = `${s}.webhook_events`;
  const D = `${s}.webhook_deliveries`;
  const A = `${s}.webhook_attempts`;
  const S = `${s}.webhook_worker_slots`;
  const T = `${s}.webhook_tenants`;
  const n = (name: string) => `surety_wh_${name}_${schema}`.slice(0, 63);
  const st = (name: string, text: string): Statement => ({ name: n(name), text });
  return {
    tables: { EP, EV, D, A, S, T },
    // The outbox write: the event and one delivery per subscribed enabled endpoint. One round trip.
    // A delivery to an endpoint whose circuit breaker is open waits behind its probe (hold_until).
    // No NOTIFY in here: a transaction that notifies holds PostgreSQL's notify-queue lock from its
    // commit record to the end of COMMIT, so every publishing transaction would commit one at a
    // time (measured: half the publish rate). Webhooks wakes workers after COMMIT instead.
    publish: st(
      'publish',
      `with ev as (
         insert into ${EV} (tenant, id, type, api_version, resource, sequence, data, created_at)
         values ($1, $2, $3, $4, $5, nextval('${s}.webhook_event_sequence'), $6, $7)
         returning sequence),
       d as (
         insert into ${D} (tenant, endpoint_id, event_id, status, ordered, next_attempt_at, created_at)
         select $1, e.id, $2, 'pending', e.ordered, greatest($7, e.circuit_hold_until), $7 from ${EP} e
          where e.tenant = $1 and e.status = 'enabled' and e.event_types && array['*', $3]::text[]
            and ($8::text is null or e.id = $8)
         returning 1)
       select (select sequence::text from ev) as sequence, (select count(*) from d)::int as deliveries`,
    ),
    // Batch claim (graphile-worker's shape): due rows in due order, skipping rows other workers hold;
    // for an ordered endpoint only the head of its queue. The claim sets the lease (lease_until) and
    // counts the attempt, so a crashed worker's rows come back when the lease passes. No index covers
    // lease_until, attempts or locked_by, so the claim is a HOT update where the page has room
    // (fillfactor 80 keeps some): no index entries, where moving next_attempt_at wrote five per row
    // (migration 000003).
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
    // The worker runs it under `claimSettings`: planned for its values every time (one plan per
    // batch), with bitmap scans and sorts off, so the due index is walked in order whatever the
    // statistics say (after a backlog they predate, the planner otherwise reads and sorts every
    // pending row); the only sorts left are of the window's rows. The claimed rows are updated by
    // primary key (`= any (array(…))`), and the event and endpoint fetched per row (LATERAL … LIMIT
    // 1): a generic plan merge-joined the whole primary key for the first (460 ms at a million
    // pending) and hash-joined every event for the second. Always one row at least: `held` names the
    // tenants a cap held rows back for (the worker claims again when one of its attempts for such a
    // tenant ends, not at the next poll); a row with a null id carries it alone when nothing was claimed.
    claim: st(
      'claim',
      `with mine as (
         select * from unnest($8::text[], $9::text[], $10::int[]) as m(tenant, endpoint_id, n)),
       busy as (
         select b.tenant, b.endpoint_id, sum(b.n)::int as n from (
           select m.tenant, m.endpoint_id, m.n from mine m
           union all
           select o.tenant, o.endpoint_id, o.n
             from ${S} w cross join lateral unnest(w.tenants, w.endpoint_ids, w.counts) as o(tenant, endpoint_id, n)
            where w.worker <> $4 and w.lease_until > $1) b
          group by b.tenant, b.endpoint_id),
       tbusy as (select b.tenant, sum(b.n)::int as n from busy b group by b.tenant),
       tokens as (
         select e.tenant, e.id as endpoint_id,
                floor(least(e.rate_limit::float8, coalesce(e.rate_tokens, e.rate_limit::float8)
                  + greatest(0, extract(epoch from ($1::timestamptz - coalesce(e.rate_at, $1::timestamptz))))
                    * e.rate_limit))::int as n
           from ${EP} e where e.rate_limit is not null),
       blocked as (
         select b.tenant, b.endpoint_id from busy b where b.n >= $6
         union all
         select t.tenant, t.endpoint_id from tokens t where t.n < 1),
       walk as materialized (
         select d.id, d.tenant, d.endpoint_id, d.next_attempt_at from ${D} d
          where d.status = 'pending' and d.next_attempt_at <= $1
            and (d.lease_until is null or d.lease_until <= $1)
            and (d.tenant, d.endpoint_id) not in (select x.tenant, x.endpoint_id from blocked x)
            and d.tenant not in (select t.tenant from tbusy t where t.n >= $7)
            and (not d.ordered or d.id = (select min(x.id) from ${D} x
                  where x.tenant = d.tenant and x.endpoint_id = d.endpoint_id and x.status = 'pending'))
          order by d.next_attempt_at
          limit $5),
       cand as (
         select w.id, w.tenant, w.next_attempt_at,
                least($6::int - coalesce(b.n, 0), coalesce(t.n, $6::int)) as room,
                row_number() over (partition by w.tenant, w.endpoint_id order by w.next_attempt_at, w.id) as n
           from walk w
           left join busy b on b.tenant = w.tenant and b.endpoint_id = w.endpoint_id
           left join tokens t on t.tenant = w.tenant and t.endpoint_id = w.endpoint_id),
       ranked as (
         select c.id, c.tenant, c.next_attempt_at, $7::int - coalesce(tb.n, 0) as room,
                row_number() over (partition by c.tenant order by c.n, c.next_attempt_at, c.id) as n
           from cand c left join tbusy tb on tb.tenant = c.tenant
          where c.n <= c.room),
       pick as (
         select r.id, row_number() over (order by r.n, r.next_attempt_at, r.id) as ord
           from ranked r where r.n <= r.room
          order by r.n, r.next_attempt_at, r.id
          limit $2),
       due as (
         select d.id from ${D} d
          where d.id = any (array(select p.id from pick p)) and d.status = 'pending'
            and (d.lease_until is null or d.lease_until <= $1)
          for update skip locked),
       claimed as (
         update ${D} d set lease_until = $3, attempts = d.attempts + 1, locked_by = $4
          where d.id = any (array(select id from due))
         returning d.id, d.tenant, d.endpoint_id, d.event_id, d.attempts),
       counts as (
         select k.tenant, k.endpoint_id, sum(k.n)::int as n from (
           select m.tenant, m.endpoint_id, m.n from mine m where m.n > 0
           union all
           select c.tenant, c.endpoint_id, 1 from claimed c) k
          group by k.tenant, k.endpoint_id),
       slots as (
         insert into ${S} as w (worker, lease_until, tenants, endpoint_ids, counts)
         select $4, $3, coalesce(array_agg(k.tenant order by k.tenant, k.endpoint_id), '{}'),
                coalesce(array_agg(k.endpoint_id order by k.tenant, k.endpoint_id), '{}'),
                coalesce(array_agg(k.n order by k.tenant, k.endpoint_id), '{}')
           from counts k
         on conflict (worker) do update set lease_until = excluded.lease_until, tenants = excluded.tenants,
                endpoint_ids = excluded.endpoint_ids, counts = excluded.counts
          -- unchanged counts are not rewritten until half the lease has passed
          where w.tenants is distinct from excluded.tenants or w.endpoint_ids is distinct from excluded.endpoint_ids
             or w.counts is distinct from excluded.counts
             or w.lease_until < $1::timestamptz + ($3::timestamptz - $1::timestamptz) / 2
         returning 1)
       select c.id::text as id, c.tenant, c.endpoint_id, c.attempts, c.event_id, ev.type, ev.api_version,
              ev.created_at, ev.sequence::text as sequence, ev.data, ep.url, ep.secrets, ep.format,
              ep.status as endpoint_status, ep.retry_schedule, ep.rate_limit,
              array(select b.tenant from busy b where b.n >= $6 union select t.tenant from tbusy t where t.n >= $7
                    union select x.tenant from cand x where x.n > x.room
                    union select x.tenant from ranked x where x.n > x.room) as held
         from (select 1) one
         left join (claimed c join pick p on p.id = c.id) on true
         left join lateral (select * from ${EV} e where e.tenant = c.tenant and e.id = c.event_id limit 1) ev on true
         left join lateral (select * from ${EP} e where e.tenant = c.tenant and e.id = c.endpoint_id limit 1) ep on true
        order by p.ord`,
    ),
    // Session settings the claim runs under (SET LOCAL, in the claim's transaction), and the lock
    // that serialises claims of this schema: each claim's snapshot then holds every earlier claim
    // and its counts, so two workers cannot both fill the same endpoint's or tenant's last slots.
    // A claim holds it for its own few milliseconds; completions and publishes never take it. JIT off:
    // the window's sorts carry enable_sort's penalty cost (1e10), far past jit_above_cost, and
    // compiling the claim took ~5 s (measured on PostgreSQL 15) for a statement that runs in ~2 ms.
    claimSettings: `set local enable_bitmapscan = off; set local enable_sort = off; set local plan_cache_mode = force_custom_plan; set local jit = off; select pg_advisory_xact_lock(${lockId(`surety.webhooks.claim:${schema}`)})`,
    // A stopped worker's counts (its claims are all handed back or recorded).
    releaseSlots: st('release_slots', `delete from ${S} where worker = $1`),
    // Batch completion: one statement for a whole batch of outcomes (unnest), fenced by locked_by,
    // plus the attempt records. Per-delivery statements are not affordable at thousands a second.
    complete: st(
      'complete',
      `with r as (
         select * from unnest($2::bigint[], $3::text[], $4::timestamptz[], $5::int[], $6::text[])
           as r(id, outcome, next_at, http_status, error_code)),
       upd as (
         update ${D} d set
           status = case when r.outcome in ('retry', 'defer') then 'pending' else r.outcome end,
           next_attempt_at = coalesce(r.next_at, d.next_attempt_at),
           attempts = case when r.outcome = 'defer' then d.attempts - 1 else d.attempts end,
           completed_at = case when r.outcome in ('retry', 'defer') then null else $1::timestamptz end,
           last_status = case when r.outcome = 'defer' then d.last_status else r.http_status end,
           last_error = case when r.outcome = 'defer' then d.last_error else r.error_code end,
           locked_by = null, lease_until = null
         from r where d.id = r.id and d.locked_by = $7
         returning d.id),
       att as (
         insert into ${A} (delivery_id, tenant, attempt, started_at, duration_ms, status, response_excerpt,
                           error_code, error_message, endpoint_id)
         select * from unnest($8::bigint[], $9::text[], $10::int[], $11::timestamptz[], $12::int[], $13::int[],
                              $14::text[], $15::text[], $16::text[], $17::text[])
         returning 1)
       select (select count(*) from upd)::int as completed, (select count(*) from att)::int as attempts`,
    ),
    // Endpoint health for a batch, rows locked in key order (no deadlock between workers). Skips the
    // write when nothing would change, so a healthy hot endpoint is not rewritten on every batch.
    // The same statement runs the endpoint's circuit breaker (docs/decisions.md): $6 is each
    // endpoint's failed attempts after the batch's last success; at $8 consecutive ones the breaker
    // opens. Its pending, unleased deliveries are then moved, in this statement, behind one probe:
    // the first (the head, for an ordered endpoint; else the earliest due, whatever its own schedule
    // said: the breaker is the backoff now) to the probe time, the others to `hold_until`,
    // $11 ms (the hold horizon) after it. A failed probe moves only the next probe's row (the
    // wait doubles from $9 ms up to $10 ms); the held rows are moved again only when the next probe
    // would come within $12 ms (one attempt's duration) of hold_until, so an outage rewrites them
    // once per horizon. A success closes the breaker and makes every pending delivery of the endpoint
    // due at once (also those whose own schedule had put them past the hold). Attempts are not
    // counted: the claim counts them, and held rows are not claimed. Never a write per poll.
    health: st(
      'health',
      `with h as (
         select * from unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::bool[], $6::int[])
           as h(tenant, endpoint_id, succeeded_at, failed_at, gone, failures)),
       locked as (
         select e.tenant, e.id, e.circuit_failures, e.circuit_opened_at, e.circuit_probe_at, e.circuit_probes,
                e.circuit_hold_until
           from ${EP} e join h on e.tenant = h.tenant and e.id = h.endpoint_id
          where h.failed_at is not null or e.failing_since is not null or e.last_success_at is null
             or e.last_success_at < h.succeeded_at - interval '1 second' or e.circuit_failures > 0
             or e.circuit_opened_at is not null
          order by e.tenant, e.id for update of e),
       c as (
         select l.*, h.succeeded_at, h.failed_at, h.gone,
                case when h.succeeded_at is not null then h.failures
                     else l.circuit_failures + h.failures end as failures
           from locked l join h on h.tenant = l.tenant and h.endpoint_id = l.id),
       s as (
         select c.*, case
             when c.failures >= $8::bigint and (c.circuit_opened_at is null or c.succeeded_at is not null) then 'open'
             when c.circuit_opened_at is not null and c.succeeded_at is not null then 'close'
             when c.circuit_opened_at is not null and c.failures > c.circuit_failures
                  and $7::timestamptz >= c.circuit_probe_at then 'probe_failed'
             when c.circuit_opened_at is not null and c.failures > c.circuit_failures then 'hold'
             end as action
           from c),
       n as (
         select s.*,
                case when s.action in ('open', 'close') then 0
                     when s.action = 'probe_failed' then s.circuit_probes + 1
                     else s.circuit_probes end as probes,
                case when s.action = 'open' then $7::timestamptz + $9::float8 * interval '1 millisecond'
                     when s.action = 'probe_failed' then $7::timestamptz
                          + least($10::float8, $9::float8 * power(2, least(s.circuit_probes + 1, 60))) * interval '1 millisecond'
                     when s.action = 'close' then null
                     else s.circuit_probe_at end as probe_at,
                case when s.action = 'open' then $7::timestamptz
                     when s.action = 'close' then null
                     else s.circuit_opened_at end as opened_at
           from s),
       t as (
         select n.*,
                case when n.action = 'open'
                       or (n.action = 'probe_failed'
                           and n.circuit_hold_until < n.probe_at + $12::float8 * interval '1 millisecond')
                       then n.probe_at + $11::float8 * interval '1 millisecond'
                     when n.action = 'close' then null
                     else n.circuit_hold_until end as hold_until
           from n),
       upd as (
         update ${EP} e set
           last_success_at = coalesce(greatest(e.last_success_at, t.succeeded_at), e.last_success_at),
           last_failure_at = coalesce(greatest(e.last_failure_at, t.failed_at), e.last_failure_at),
           failing_since = case when t.succeeded_at is not null then null
                                when t.failed_at is not null then coalesce(e.failing_since, t.failed_at)
                                else e.failing_since end,
           circuit_failures = t.failures, circuit_opened_at = t.opened_at, circuit_probe_at = t.probe_at,
           circuit_probes = t.probes, circuit_hold_until = t.hold_until
           from t
          where e.tenant = t.tenant and e.id = t.id
          returning e.tenant, e.id, e.status, e.failing_since, t.gone, t.action),
       cand as (
         select d.id, case when row_number() over (partition by d.tenant, d.endpoint_id
                                 order by case when d.ordered then d.id end, d.next_attempt_at, d.id) = 1
                           then t.probe_at else t.hold_until end as due,
                d.next_attempt_at
           from t join ${D} d on d.tenant = t.tenant and d.endpoint_id = t.id and d.status = 'pending'
          where t.action in ('open', 'probe_failed', 'hold')
            and (d.lease_until is null or d.lease_until <= $7) and d.next_attempt_at <= t.hold_until),
       held as (
         update ${D} d set next_attempt_at = cand.due from cand
          where d.id = cand.id and cand.due <> cand.next_attempt_at
            and d.status = 'pending' and (d.lease_until is null or d.lease_until <= $7)
         returning d.tenant, d.endpoint_id),
       released as (
         update ${D} d set next_attempt_at = $7 from t
          where t.action = 'close' and d.tenant = t.tenant and d.endpoint_id = t.id and d.status = 'pending'
            and (d.lease_until is null or d.lease_until <= $7)
            and d.next_attempt_at > $7
         returning d.tenant, d.endpoint_id)
       select u.tenant, u.id, u.status, u.failing_since, u.gone, u.action,
              (select count(*) from held x where x.tenant = u.tenant and x.endpoint_id = u.id)::int as held,
              (select count(*) from released x where x.tenant = u.tenant and x.endpoint_id = u.id)::int as released
         from upd u`,
    ),
    disable: st(
      'disable',
      `with e as (
         update ${EP} set status = 'disabled', disabled_reason = $3, disabled_at = $4, version = version + 1,
                updated_at = $4
          where tenant = $1 and id = $2 and status = 'enabled'
         returning tenant, id, url),
       f as (
         update ${D} d set status = 'failed', completed_at = $4, last_error = 'endpoint_disabled'
           from e where d.tenant = e.tenant and d.endpoint_id = e.id and d.status = 'pending' and d.locked_by is null
         returning 1)
       select e.url, (select count(*) from f)::int as failed from e`,
    ),
    // Token bucket per endpoint, in the endpoint row: enforced across every worker. Rows are locked
    // (in key order) before the tokens are read, so two workers cannot both spend the same tokens.
    // Each worker passes its own "now", read before its claim: a worker can arrive with a time older
    // than the bucket's. Such a call refills nothing and leaves rate_at where it is; moving rate_at
    // back would let the next call refill the same interval twice (one token too many per race).
    takeTokens: st(
      'take_tokens',
      `with req as (select * from unnest($1::text[], $2::text[], $3::int[]) as r(tenant, endpoint_id, wanted)),
       locked as (
         select e.tenant, e.id, e.rate_limit,
                least(e.rate_limit::float8, coalesce(e.rate_tokens, e.rate_limit::float8)
                  + greatest(0, extract(epoch from ($4::timestamptz - coalesce(e.rate_at, $4::timestamptz))))
                    * e.rate_limit) as available
           from ${EP} e join req on e.tenant = req.tenant and e.id = req.endpoint_id
          where e.rate_limit is not null
          order by e.tenant, e.id for update of e),
       grant_ as (
         select l.tenant, l.id, l.available, l.rate_limit, least(req.wanted, floor(l.available))::int as granted
           from locked l join req on req.tenant = l.tenant and req.endpoint_id = l.id)
       update ${EP} e set rate_tokens = g.available - g.granted,
                       rate_at = greatest(e.rate_at, $4)
         from grant_ g where e.tenant = g.tenant and e.id = g.id
       returning e.tenant, e.id, g.granted, e.rate_limit`,
    ),
  };
}

export type Statements = ReturnType<typeof statements>;
