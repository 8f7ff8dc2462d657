// Retention by DELETE (Webhooks.purge): old events with their deliveries and attempts, a batch at a
// time. The service drops whole partitions instead (retention/maintain.ts, Webhooks.maintain).
import type { Queryable } from '@surety/db';
import type { Names } from './schema.js';

/**
 * Deletes up to `batchSize` events created before `cutoffIso` that have no pending delivery, with
 * their deliveries and attempts; how many events. Rows another purge holds are skipped.
 */
export async function purgeBatch(
  q: Queryable,
  t: Pick<Names, 'D' | 'EV' | 'A' | 'K'>,
  input: { cutoffIso: string; batchSize: number },
): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    `with old as (
       select tenant, id from ${t.EV} ev where created_at < $1
          and not exists (select 1 from ${t.D} d where d.tenant = ev.tenant and d.event_id = ev.id and d.status = 'pending')
        order by created_at limit $2 for update skip locked),
     dd as (delete from ${t.D} d using old where d.tenant = old.tenant and d.event_id = old.id returning d.id),
     aa as (delete from ${t.A} a using dd where a.delivery_id = dd.id returning 1),
     ee as (delete from ${t.EV} ev using old where ev.tenant = old.tenant and ev.id = old.id returning 1),
     kk as (delete from ${t.K} k using old where k.tenant = old.tenant and k.id = old.id returning 1)
     select (select count(*) from ee)::int as n, (select count(*) from aa)::int as attempts`,
    [input.cutoffIso, input.batchSize],
  );
  return rows[0]!.n;
}
