// The token bucket per endpoint that rate-limited endpoints spend from (issue 15): taken in the
// claim's transaction, under its lock, for the rows the claim took (sql/claim.ts).
import type { Queryable } from '@surety/db';
import type { Claimed } from './claimed.js';
import type { Names } from './schema.js';
import { effectiveRate } from './throttle.js';

export function tokenStatements({ EP, st }: Names) {
  return {
    // Token bucket per endpoint, in the endpoint row: enforced across every worker. Rows are locked
    // (in key order) before the tokens are read, so two workers cannot both spend the same tokens.
    // Each worker passes its own "now", read before its claim: a worker can arrive with a time older
    // than the bucket's. Such a call refills nothing and leaves rate_at where it is; moving rate_at
    // back would let the next call refill the same interval twice (one token too many per race).
    takeTokens: st(
      'take_tokens',
      `with req as (select * from unnest($1::text[], $2::text[], $3::int[]) as r(tenant, endpoint_id, wanted)),
       locked as (
         select e.tenant, e.id, r.rate as rate_limit,
                least(r.rate, coalesce(e.rate_tokens, r.rate)
                  + greatest(0, extract(epoch from ($4::timestamptz - coalesce(e.rate_at, $4::timestamptz))))
                    * r.rate) as available
           from ${EP} e join req on e.tenant = req.tenant and e.id = req.endpoint_id
           -- the endpoint's own limit, or lower while it is throttled (throttle.ts)
           cross join lateral (select ${effectiveRate('e', '$4::timestamptz')} as rate) r
          where r.rate is not null
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

export type TokenStatements = ReturnType<typeof tokenStatements>;

/**
 * Which claimed rows may be sent now under their endpoints' rate limits (a shared token bucket).
 * The claim takes no more rows of a limited endpoint than its bucket holds and leaves the rest of
 * its backlog unclaimed, so this grants them all unless the bucket moved in between (a worker
 * whose clock runs behind the bucket's): only then is a row put back.
 */
export async function grantRateLimited(
  tx: Queryable,
  st: TokenStatements,
  input: { rows: Claimed[]; nowMs: number },
): Promise<Set<string>> {
  const allowed = new Set(input.rows.filter((r) => r.rate_limit === null).map((r) => r.id));
  const limited = input.rows.filter((r) => r.rate_limit !== null);
  if (limited.length === 0) return allowed;
  const wanted = new Map<string, Claimed[]>();
  for (const r of limited) {
    const k = `${r.tenant}\0${r.endpoint_id}`;
    wanted.set(k, [...(wanted.get(k) ?? []), r]);
  }
  const keys = [...wanted.keys()].map((k) => k.split('\0') as [string, string]);
  const grants = await takeTokens(tx, st, {
    tenants: keys.map((k) => k[0]),
    endpointIds: keys.map((k) => k[1]),
    wanted: keys.map((k) => wanted.get(k.join('\0'))!.length),
    nowMs: input.nowMs,
  });
  for (const g of grants) {
    for (const r of wanted.get(`${g.tenant}\0${g.id}`)!.slice(0, g.granted)) allowed.add(r.id);
  }
  return allowed;
}

/** Takes up to `wanted[i]` tokens from each endpoint's bucket; returns what each was granted. */
export async function takeTokens(
  q: Queryable,
  st: TokenStatements,
  input: { tenants: string[]; endpointIds: string[]; wanted: number[]; nowMs: number },
): Promise<{ tenant: string; id: string; granted: number; rate_limit: number }[]> {
  const { rows } = await q.query<{ tenant: string; id: string; granted: number; rate_limit: number }>(
    st.takeTokens,
    [input.tenants, input.endpointIds, input.wanted, new Date(input.nowMs).toISOString()],
  );
  return rows;
}
