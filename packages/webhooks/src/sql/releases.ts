// What a circuit breaker's close could not see, released after it (delivery/late-holds.ts drives
// these). Both statements take the closed endpoints `for share`, in key order, and release nothing for
// one whose breaker is open again: an open committing meanwhile is seen by the lock's recheck, and
// one after waits for the lock. Poll endpoints have no breaker, so nothing here is ever theirs.
import type { Queryable } from '@surety/db';
import type { Names } from './schema.js';

export function releaseStatements({ D, EP, st }: Names) {
  const closed = `with e as (
         select e.tenant, e.id from ${EP} e
           join unnest($1::text[], $2::text[]) as c(tenant, endpoint_id) on e.tenant = c.tenant and e.id = c.endpoint_id
          where e.circuit_opened_at is null
          order by e.tenant, e.id for share of e)`;
  return {
    // Right after the close committed. The close's statement read the deliveries as they were when it
    // started, before it waited for the endpoint's lock: another worker's hold that committed meanwhile
    // moved deliveries the close did not see held (breaker-race.test.ts). This statement starts after
    // the close and sees them. Like the close, it makes due every pending, unleased delivery not yet
    // due, one whose own retry a completion just put later included.
    releaseClosed: st(
      'release_closed',
      `${closed}
       update ${D} d set next_attempt_at = $3 from e
        where d.tenant = e.tenant and d.endpoint_id = e.id and d.status = 'pending'
          and (d.lease_until is null or d.lease_until <= $3) and d.next_attempt_at > $3`,
    ),
    // Later, a few times: a delivery published while the breaker was open is held behind its probe
    // (publish.ts); when its transaction committed after the close, the close could not see it, and
    // it would wait until the hold horizon. Those never attempted, not answered, unleased and not yet
    // due, published since $4 (an id's time prefix: the scan stays in the endpoints' recent rows).
    releaseLateHolds: st(
      'release_late_holds',
      `${closed}
       update ${D} d set next_attempt_at = $3 from e
        where d.tenant = e.tenant and d.endpoint_id = e.id and d.status = 'pending' and d.id >= $4
          and d.next_attempt_at > $3 and d.attempts = 0 and d.last_status is null and d.last_error is null
          and (d.lease_until is null or d.lease_until <= $3)`,
    ),
  };
}

type ReleaseStatements = ReturnType<typeof releaseStatements>;

/** An endpoint whose breaker closed. */
export interface ClosedEndpoint {
  tenant: string;
  id: string;
}

/**
 * Releases what the close of these endpoints' breakers could not see: with `idFloor`, what publishes
 * held (`releaseLateHolds`), else what other workers' holds moved (`releaseClosed`). Returns the
 * deliveries made due; none for an endpoint whose breaker is open again.
 */
export async function releaseAfterClose(
  q: Queryable,
  st: ReleaseStatements,
  input: { endpoints: readonly ClosedEndpoint[]; nowIso: string; idFloor?: string },
): Promise<number> {
  const sorted = [...input.endpoints].sort((a, b) => (a.tenant + a.id < b.tenant + b.id ? -1 : 1));
  const keys = [sorted.map((e) => e.tenant), sorted.map((e) => e.id), input.nowIso];
  const { rowCount } =
    input.idFloor === undefined
      ? await q.query(st.releaseClosed, keys)
      : await q.query(st.releaseLateHolds, [...keys, input.idFloor]);
  return rowCount ?? 0;
}
