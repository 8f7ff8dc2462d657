// Application statements (Webhooks' application methods keep the checks and the not-found rule).
import type { Queryable } from '@surety/db';
import type { KeyedRow } from '../reads/pages.js';
import type { Names } from './schema.js';
import { createdAtUs } from './values.js';

type Tables = Pick<Names, 'AP' | 'EP' | 'T' | 'D'>;

export interface ApplicationRow {
  id: string;
  uid: string | null;
  name: string;
  metadata: Record<string, string>;
  version: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, uid, name, metadata, version, created_at, updated_at';

/**
 * Which column a reference names: ids start with `app_` and uids may not (applications.ts), so a
 * reference is looked up by the primary key or by the uid index, never by both.
 */
export const refColumn = (ref: string): 'id' | 'uid' => (ref.startsWith('app_') ? 'id' : 'uid');

/**
 * SQL for the id of the application a reference names, given the reference's placeholder (`$3`)
 * and the tenant's (`$1`): the reference itself for an id, the uid's lookup otherwise (null, so
 * matching nothing, for an unknown uid).
 */
export const applicationIdOf = (AP: string, ref: string, at: string, tenantAt = '$1'): string =>
  refColumn(ref) === 'id' ? at : `(select id from ${AP} where tenant = ${tenantAt} and uid = ${at})`;

/** Inserts the application; undefined when the tenant has another with this uid (nothing written). */
export async function insertApplication(
  q: Queryable,
  t: Tables,
  input: {
    tenant: string;
    id: string;
    uid: string | null;
    name: string;
    metadataJson: string;
    nowIso: string;
  },
): Promise<ApplicationRow | undefined> {
  // ON CONFLICT DO NOTHING rather than catching 23505: the caller's transaction stays usable (the
  // service stores its idempotent 409 answer in it), and a concurrent insert of the same uid waits
  // for the first to commit and then answers "taken".
  const { rows } = await q.query<ApplicationRow>(
    `insert into ${t.AP} (tenant, id, uid, name, metadata, created_at, updated_at)
     values ($1, $2, $3, $4, $5::text::jsonb, $6, $6)
     on conflict (tenant, uid) where uid is not null do nothing
     returning ${COLUMNS}`,
    [input.tenant, input.id, input.uid, input.name, input.metadataJson, input.nowIso],
  );
  return rows[0];
}

/** The application named by id or uid; `forUpdate` locks it (deleteApplication). */
export async function selectApplication(
  q: Queryable,
  t: Tables,
  input: { tenant: string; ref: string; forUpdate?: boolean },
): Promise<ApplicationRow | undefined> {
  const { rows } = await q.query<ApplicationRow>(
    `select ${COLUMNS} from ${t.AP} where tenant = $1 and ${refColumn(input.ref)} = $2${input.forUpdate ? ' for update' : ''}`,
    [input.tenant, input.ref],
  );
  return rows[0];
}

/** A tenant's applications, newest first, from after the (created_at, id) of `after` when given. */
export async function selectApplications(
  q: Queryable,
  t: Tables,
  input: { tenant: string; limit: number; after: readonly [at: string, id: string] | null },
): Promise<(ApplicationRow & KeyedRow)[]> {
  const params: unknown[] = [input.tenant, input.limit];
  let where = 'tenant = $1';
  if (input.after) {
    params.push(...input.after);
    where += ' and (created_at, id) < ($3::timestamptz, $4)';
  }
  const { rows } = await q.query<ApplicationRow & KeyedRow>(
    `select ${COLUMNS}, ${createdAtUs('created_at')} from ${t.AP}
      where ${where} order by created_at desc, id desc limit $2`,
    params,
  );
  return rows;
}

/**
 * The application changed if it is at `ifVersion`; undefined otherwise (missing, or another
 * version). A uid another application holds raises 23505 (applications.ts turns it into
 * ApplicationUidTakenError).
 */
export async function updateApplicationRow(
  q: Queryable,
  t: Tables,
  input: {
    tenant: string;
    id: string;
    ifVersion: number;
    /** Whether to set uid (to `uid`, null included). */
    setUid: boolean;
    uid: string | null;
    name: string | null;
    metadataJson: string | null;
    nowIso: string;
  },
): Promise<ApplicationRow | undefined> {
  const { rows } = await q.query<ApplicationRow>(
    `update ${t.AP} set
        uid = case when $4::bool then $5::text else uid end, name = coalesce($6, name),
        metadata = coalesce($7::text::jsonb, metadata), version = version + 1, updated_at = $8
      where tenant = $1 and id = $2 and version = $3 returning ${COLUMNS}`,
    [
      input.tenant,
      input.id,
      input.ifVersion,
      input.setUid,
      input.uid,
      input.name,
      input.metadataJson,
      input.nowIso,
    ],
  );
  return rows[0];
}

/**
 * Deletes the application's endpoints as deleteEndpoint does each one: the tenant's endpoint count
 * goes down in the same statement, and their pending deliveries fail with `endpoint_deleted`.
 * The caller holds the application's row lock, so no endpoint of it can be created meanwhile.
 */
export async function deleteApplicationEndpoints(
  q: Queryable,
  t: Tables,
  input: { tenant: string; applicationId: string; nowIso: string },
): Promise<{ endpoints: number; cancelled: number }> {
  const { rows } = await q.query<{ ids: string[] | null }>(
    `with d as (
       delete from ${t.EP} where tenant = $1 and application_id = $2 returning id),
     c as (
       update ${t.T} t set endpoints = greatest(t.endpoints - (select count(*) from d), 0)
        where t.tenant = $1 and exists (select 1 from d)
       returning 1)
     select (select array_agg(id) from d) as ids, (select count(*) from c)::int as counted`,
    [input.tenant, input.applicationId],
  );
  const ids = rows[0]!.ids ?? [];
  if (ids.length === 0) return { endpoints: 0, cancelled: 0 };
  // A statement of its own, as deleteEndpointRow's: its snapshot sees deliveries that publishes
  // committed while the delete above ran.
  const failed = await q.query<{ n: number }>(
    `with f as (
       update ${t.D} set status = 'failed', last_error = 'endpoint_deleted', completed_at = $3
        where tenant = $1 and endpoint_id = any($2::text[]) and status = 'pending'
       returning 1)
     select count(*)::int as n from f`,
    [input.tenant, ids, input.nowIso],
  );
  return { endpoints: ids.length, cancelled: failed.rows[0]!.n };
}

/** Deletes the application row (its endpoints are gone already); false when it was not there. */
export async function deleteApplicationRow(
  q: Queryable,
  t: Tables,
  input: { tenant: string; id: string },
): Promise<boolean> {
  const { rows } = await q.query<{ id: string }>(
    `delete from ${t.AP} where tenant = $1 and id = $2 returning id`,
    [input.tenant, input.id],
  );
  return rows.length > 0;
}
