// Endpoint statements (Webhooks' endpoint methods keep the checks and the not-found rule).
import type { Queryable } from '@surety/db';
import type { KeyedRow } from '../reads/pages.js';
import { refColumn } from './applications.js';
import { ENDPOINT_COLUMNS, type EndpointRow } from './endpoint-row.js';
import type { Names } from './schema.js';
import { createdAtUs } from './values.js';

type Tables = Pick<Names, 'EP' | 'T' | 'D' | 'AP'>;

/**
 * Inserts an endpoint if the tenant has room (its count row is taken in the same statement, so the
 * limit is exact under concurrent creates); undefined when it has not.
 */
export async function insertEndpoint(
  q: Queryable,
  t: Tables,
  input: {
    tenant: string;
    id: string;
    url: string;
    description: string;
    eventTypes: string[];
    format: string;
    secretsJson: string;
    retrySchedule: number[] | null;
    rateLimit: number | null;
    ordered: boolean;
    nowIso: string;
    maxEndpointsPerTenant: number;
    traceContext: boolean;
    /** The application's id (resolved by the caller); a foreign key checks it. */
    applicationId: string | null;
    headersJson: string;
    /** The filter as JSON and its jsonpath form, both null for none. */
    filterJson: string | null;
    filterPath: string | null;
    /** destinations/config.ts: the kind, its settings, its credentials (JSON, or null). */
    kind: string;
    destinationJson: string;
    credentialsJson: string | null;
    /** auth/config.ts: the stored receiver authentication (JSON), or null. */
    authJson: string | null;
  },
): Promise<EndpointRow | undefined> {
  const { rows } = await q.query<EndpointRow>(
    `with slot as (
       insert into ${t.T} as t (tenant, endpoints) values ($1, 1)
       on conflict (tenant) do update set endpoints = t.endpoints + 1 where t.endpoints < $12
       returning 1)
     insert into ${t.EP} (tenant, id, url, description, event_types, format, secrets, retry_schedule,
            rate_limit, ordered, created_at, updated_at, trace_context, application_id, headers, filter, filter_path,
            kind, destination, credentials, auth)
     select $1::text, $2::text, $3::text, $4::text, $5::text[], $6::text, $7::text::jsonb, $8::int[], $9::int,
            $10::bool, $11::timestamptz, $11::timestamptz, $13::bool, $14::text, $15::text::jsonb,
            $16::text::jsonb, $17::text::jsonpath, $18::text, $19::text::jsonb, $20::text::jsonb,
            $21::text::jsonb
      where exists (select 1 from slot)
     returning ${ENDPOINT_COLUMNS}`,
    [
      input.tenant,
      input.id,
      input.url,
      input.description,
      input.eventTypes,
      input.format,
      input.secretsJson,
      input.retrySchedule,
      input.rateLimit,
      input.ordered,
      input.nowIso,
      input.maxEndpointsPerTenant,
      input.traceContext,
      input.applicationId,
      input.headersJson,
      input.filterJson,
      input.filterPath,
      input.kind,
      input.destinationJson,
      input.credentialsJson,
      input.authJson,
    ],
  );
  return rows[0];
}

export async function selectEndpoint(
  q: Queryable,
  t: Tables,
  input: { tenant: string; id: string },
): Promise<EndpointRow | undefined> {
  const { rows } = await q.query<EndpointRow>(
    `select ${ENDPOINT_COLUMNS} from ${t.EP} where tenant = $1 and id = $2`,
    [input.tenant, input.id],
  );
  return rows[0];
}

/** The endpoint changed if it is at `ifVersion`; undefined otherwise (missing, or another version). */
export async function updateEndpointRow(
  q: Queryable,
  t: Tables,
  input: {
    tenant: string;
    id: string;
    ifVersion: number;
    url: string | null;
    eventTypes: string[] | null;
    description: string | null;
    format: string | null;
    /** Whether to set retry_schedule (to `retrySchedule`, null included). */
    setRetrySchedule: boolean;
    retrySchedule: number[] | null;
    setRateLimit: boolean;
    rateLimit: number | null;
    ordered: boolean | null;
    nowIso: string;
    traceContext: boolean | null;
    /** The new headers as JSON (replacing the old ones), or null to keep them. */
    headersJson: string | null;
    /** Whether to set the filter (to `filterJson` and `filterPath`, null included). */
    setFilter: boolean;
    filterJson: string | null;
    filterPath: string | null;
    /** A broker endpoint's new settings (JSON) or null to keep them; credentials set when `setCredentials`. */
    destinationJson: string | null;
    setCredentials: boolean;
    credentialsJson: string | null;
    /** Whether to set the receiver authentication (to `authJson`, null included). */
    setAuth: boolean;
    authJson: string | null;
  },
): Promise<EndpointRow | undefined> {
  const { rows } = await q.query<EndpointRow>(
    `update ${t.EP} set
        url = coalesce($4, url), event_types = coalesce($5, event_types), description = coalesce($6, description),
        format = coalesce($7, format),
        retry_schedule = case when $8::bool then $9::int[] else retry_schedule end,
        rate_limit = case when $10::bool then $11::int else rate_limit end,
        ordered = coalesce($12, ordered), version = version + 1, updated_at = $13,
        trace_context = coalesce($14, trace_context), headers = coalesce($15::text::jsonb, headers),
        filter = case when $16::bool then $17::text::jsonb else filter end,
        filter_path = case when $16::bool then $18::text::jsonpath else filter_path end,
        destination = coalesce($19::text::jsonb, destination),
        credentials = case when $20::bool then $21::text::jsonb else credentials end,
        auth = case when $22::bool then $23::text::jsonb else auth end
      where tenant = $1 and id = $2 and version = $3 returning ${ENDPOINT_COLUMNS}`,
    [
      input.tenant,
      input.id,
      input.ifVersion,
      input.url,
      input.eventTypes,
      input.description,
      input.format,
      input.setRetrySchedule,
      input.retrySchedule,
      input.setRateLimit,
      input.rateLimit,
      input.ordered,
      input.nowIso,
      input.traceContext,
      input.headersJson,
      input.setFilter,
      input.filterJson,
      input.filterPath,
      input.destinationJson,
      input.setCredentials,
      input.credentialsJson,
      input.setAuth,
      input.authJson,
    ],
  );
  return rows[0];
}

/**
 * Deletes the endpoint (at `ifVersion` when given) and lowers the tenant's count in the same
 * statement; when it was deleted, fails its queued deliveries. False when nothing was deleted.
 */
export async function deleteEndpointRow(
  q: Queryable,
  t: Tables,
  input: { tenant: string; id: string; ifVersion: number | null; nowIso: string },
): Promise<boolean> {
  const { rows } = await q.query<{ deleted: number }>(
    `with d as (
       delete from ${t.EP} where tenant = $1 and id = $2 and ($3::int is null or version = $3)
       returning tenant),
     c as (
       update ${t.T} t set endpoints = t.endpoints - 1 from d
        where t.tenant = d.tenant and t.endpoints > 0
       returning 1)
     select (select count(*) from d)::int as deleted, (select count(*) from c)::int as counted`,
    [input.tenant, input.id, input.ifVersion],
  );
  if (rows[0]!.deleted === 0) return false;
  await q.query(
    `update ${t.D} set status = 'failed', last_error = 'endpoint_deleted', completed_at = $3
      where tenant = $1 and endpoint_id = $2 and status = 'pending'`,
    [input.tenant, input.id, input.nowIso],
  );
  return true;
}

/** Re-enables the endpoint, clearing its breaker when it was disabled; undefined when it is missing. */
export async function enableEndpointRow(
  q: Queryable,
  t: Tables,
  input: { tenant: string; id: string; nowIso: string },
): Promise<EndpointRow | undefined> {
  const { rows } = await q.query<EndpointRow>(
    `update ${t.EP} set status = 'enabled', disabled_reason = null, disabled_at = null,
            failing_since = null, version = version + 1, updated_at = $3,
            circuit_failures = case when status = 'disabled' then 0 else circuit_failures end,
            circuit_opened_at = case when status = 'disabled' then null else circuit_opened_at end,
            circuit_probe_at = case when status = 'disabled' then null else circuit_probe_at end,
            circuit_probes = case when status = 'disabled' then 0 else circuit_probes end,
            circuit_hold_until = case when status = 'disabled' then null else circuit_hold_until end,
            -- the breaker's announcement and the adaptive throttle start afresh too (migration 000020)
            circuit_notified = case when status = 'disabled' then false else circuit_notified end,
            throttle_until = case when status = 'disabled' then null else throttle_until end,
            throttle_pause_until = case when status = 'disabled' then null else throttle_pause_until end
      where tenant = $1 and id = $2 returning ${ENDPOINT_COLUMNS}`,
    [input.tenant, input.id, input.nowIso],
  );
  return rows[0];
}

/** Makes `secret` current; the current ones expire at `untilIso`, expired ones drop out. */
export async function rotateSecretRow(
  q: Queryable,
  t: Tables,
  input: { tenant: string; id: string; secret: string; untilIso: string; nowIso: string },
): Promise<EndpointRow | undefined> {
  const { rows } = await q.query<EndpointRow>(
    `update ${t.EP} set
        secrets = jsonb_build_array(jsonb_build_object('secret', $3::text, 'expiresAt', null)) ||
          coalesce((select jsonb_agg(case when s->>'expiresAt' is null then jsonb_set(s, '{expiresAt}', to_jsonb($4::text)) else s end)
                      from jsonb_array_elements(secrets) s
                     where s->>'expiresAt' is null or (s->>'expiresAt')::timestamptz > $5::timestamptz), '[]'::jsonb),
        version = version + 1, updated_at = $5
      where tenant = $1 and id = $2 returning ${ENDPOINT_COLUMNS}`,
    [input.tenant, input.id, input.secret, input.untilIso, input.nowIso],
  );
  return rows[0];
}

/**
 * A tenant's endpoints, newest first, from after the (created_at, id) of `after` when given; only
 * those of the application named by id or uid when `application` is given (none for an unknown one).
 */
export async function selectEndpoints(
  q: Queryable,
  t: Tables,
  input: {
    tenant: string;
    limit: number;
    after: readonly [at: string, id: string] | null;
    application: string | null;
  },
): Promise<(EndpointRow & KeyedRow)[]> {
  const params: unknown[] = [input.tenant, input.limit];
  let where = 'tenant = $1';
  if (input.after) {
    params.push(...input.after);
    where += ' and (created_at, id) < ($3::timestamptz, $4)';
  }
  if (input.application !== null) {
    params.push(input.application);
    const at = `$${params.length}`;
    where +=
      refColumn(input.application) === 'id'
        ? ` and application_id = ${at}`
        : ` and application_id = (select id from ${t.AP} where tenant = $1 and uid = ${at})`;
  }
  const { rows } = await q.query<EndpointRow & KeyedRow>(
    `select ${ENDPOINT_COLUMNS}, ${createdAtUs('created_at')} from ${t.EP}
      where ${where} order by created_at desc, id desc limit $2`,
    params,
  );
  return rows;
}
