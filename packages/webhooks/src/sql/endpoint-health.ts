// The read behind endpointHealth: the endpoint's streak fields and its last day's attempts.
import type { Queryable } from '@surety/db';
import type { Names } from './schema.js';

export interface EndpointHealthRow {
  last_success_at: Date | null;
  last_failure_at: Date | null;
  failing_since: Date | null;
  /**
   * Attempts since `sinceIso`, and how many of them succeeded: answered 2xx, or (a broker endpoint's,
   * which has no HTTP status) confirmed by the broker, recorded with neither status nor error code.
   */
  attempts: number;
  ok: number;
  pending: number;
}

/** The endpoint's health counters; undefined when it is not the tenant's. */
export async function selectEndpointHealth(
  q: Queryable,
  t: Pick<Names, 'EP' | 'D' | 'A'>,
  input: { tenant: string; id: string; sinceIso: string },
): Promise<EndpointHealthRow | undefined> {
  const { rows } = await q.query<EndpointHealthRow>(
    `select e.last_success_at, e.last_failure_at, e.failing_since,
            (select count(*)::int from ${t.A} a where a.tenant = e.tenant and a.endpoint_id = e.id and a.started_at >= $3) as attempts,
            (select count(*)::int from ${t.A} a where a.tenant = e.tenant and a.endpoint_id = e.id and a.started_at >= $3
                and (a.status between 200 and 299 or (a.status is null and a.error_code is null))) as ok,
            (select count(*)::int from ${t.D} d where d.tenant = e.tenant and d.endpoint_id = e.id and d.status = 'pending') as pending
       from ${t.EP} e where e.tenant = $1 and e.id = $2`,
    [input.tenant, input.id, input.sinceIso],
  );
  return rows[0];
}
