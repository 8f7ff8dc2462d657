// The endpoint writes behind Webhooks' methods: a URL check, a new secret, and the not-found rule
// (a mutation of an endpoint that does not exist throws EndpointNotFoundError; a version mismatch
// is an answer, not an error).
import { type Queryable, sqlState, type Tx } from '@surety/db';
import { generateSecret } from '@surety/webhook-verify';
import { resolveApplication } from './applications.js';
import { checkAuth } from './auth/config.js';
import { InvalidAuthError } from './auth/errors.js';
import { type CheckedDestination, checkEndpointDestination } from './destinations/config.js';
import { ApplicationNotFoundError, EndpointLimitError, EndpointNotFoundError } from './errors.js';
import { compileFilter, parseFilter } from './filter/index.js';
import { checkHeaders } from './headers.js';
import { newId } from './ids.js';
import { internalsOf, nowIso } from './internals.js';
import { toEndpoint } from './sql/endpoint-row.js';
import {
  deleteEndpointRow,
  enableEndpointRow,
  insertEndpoint,
  rotateSecretRow,
  selectEndpoint,
  updateEndpointRow,
} from './sql/endpoints.js';
import { disableEndpointRow } from './sql/health.js';
import type {
  CreateEndpointInput,
  DeleteEndpointInput,
  DisableEndpointInput,
  Endpoint,
  EndpointFilter,
  EndpointPatch,
  EndpointRef,
  RotateSecretInput,
  SecretEntry,
  UpdateEndpointInput,
} from './types.js';
import type { Webhooks } from './webhooks.js';

/**
 * The fields checked before anything else (a NUL in a header value is a header problem, not an
 * unstorable string): headers (InvalidHeadersError), filter (InvalidFilterError).
 */
export function checkEndpointFields(fields: Pick<EndpointPatch, 'headers' | 'filter'>): void {
  if (fields.headers !== undefined) checkHeaders(fields.headers);
  if (fields.filter != null) parseFilter(fields.filter);
}

/** The filter as stored: as written, and as the jsonpath predicate publishing evaluates. */
const filterColumns = (filter: EndpointFilter | null) =>
  filter === null
    ? { filterJson: null, filterPath: null }
    : { filterJson: JSON.stringify(filter), filterPath: compileFilter(parseFilter(filter)) };

const hasUserInfo = (url: string) => {
  try {
    const u = new URL(url);
    return u.username !== '' || u.password !== '';
  } catch {
    return false;
  }
};

/** The engine's rules for a destination: its plain-text switch, allow-list and webhook URL check. */
const destinationChecks = (w: Webhooks) => ({
  allowHttp: w.allowHttp,
  allowList: w.allowList,
  checkWebhookUrl: (url: string) => w.checkUrl(url),
});

/**
 * The stored form of an endpoint's `auth` as JSON (auth/config.ts: checked, secrets kept), or null
 * for none. Only a webhook endpoint takes one: a broker's credentials are its own (destinations/).
 */
function authColumn(w: Webhooks, auth: unknown, kind: string): string | null {
  const stored = checkAuth(auth, { checkUrl: (url) => w.checkUrl(url), nowMs: internalsOf(w).now() });
  if (stored !== null && kind !== 'webhook') {
    const message = `a ${kind} endpoint takes no receiver authentication (its broker credentials are \`credentials\`)`;
    throw new InvalidAuthError(`/auth: ${message}`, [{ path: '/auth', message }]);
  }
  return stored === null ? null : JSON.stringify(stored);
}

/** Webhooks.getEndpoint, after the input check: undefined when it is not the tenant's. */
export async function findEndpoint(
  w: Webhooks,
  q: Queryable,
  ref: EndpointRef,
): Promise<Endpoint | undefined> {
  const i = internalsOf(w);
  const row = await selectEndpoint(q, i.st.tables, { tenant: ref.tenant, id: ref.id });
  return row ? toEndpoint(row, i.now()) : undefined;
}

/** Throws EndpointNotFoundError unless the endpoint exists (after a write that changed nothing). */
async function mustExist(w: Webhooks, q: Queryable, ref: EndpointRef): Promise<void> {
  if (!(await findEndpoint(w, q, ref))) throw new EndpointNotFoundError();
}

/** Webhooks.createEndpoint, after the input check. */
export async function createEndpointFor(
  w: Webhooks,
  q: Queryable,
  input: CreateEndpointInput,
): Promise<{ endpoint: Endpoint; secret: string }> {
  const i = internalsOf(w);
  const dest = checkEndpointDestination(input, destinationChecks(w));
  const applicationId =
    input.applicationId === undefined
      ? null
      : await resolveApplication(w, q, {
          tenant: input.tenant,
          ref: input.applicationId,
          field: 'applicationId',
        });
  const secret = generateSecret();
  const row = await insertEndpoint(q, i.st.tables, {
    tenant: input.tenant,
    id: newId('we'),
    url: dest.url,
    kind: dest.kind,
    destinationJson: dest.destinationJson,
    credentialsJson: dest.credentialsJson,
    description: input.description ?? '',
    eventTypes: input.eventTypes,
    format: input.format ?? 'surety',
    secretsJson: JSON.stringify([{ secret, expiresAt: null }] satisfies SecretEntry[]),
    retrySchedule: input.retrySchedule ?? null,
    rateLimit: input.rateLimit ?? null,
    ordered: input.ordered ?? false,
    nowIso: nowIso(w),
    traceContext: input.traceContext ?? true,
    headersJson: JSON.stringify(input.headers ?? {}), // checked by Webhooks.createEndpoint
    ...filterColumns(input.filter ?? null), // checked by Webhooks.createEndpoint
    authJson: authColumn(w, input.auth, dest.kind),
    maxEndpointsPerTenant: w.maxEndpointsPerTenant,
    applicationId,
  }).catch((error: unknown) => {
    // The foreign key: the application was deleted between the lookup and the insert.
    throw sqlState(error) === '23503' ? new ApplicationNotFoundError('applicationId') : error;
  });
  if (!row) throw new EndpointLimitError(w.maxEndpointsPerTenant);
  return { endpoint: toEndpoint(row, i.now()), secret };
}

/** Webhooks.updateEndpoint, after the input check. */
export async function updateEndpointFor(
  w: Webhooks,
  q: Queryable,
  input: UpdateEndpointInput,
): Promise<Endpoint | undefined> {
  const i = internalsOf(w);
  const { tenant, id, patch } = input;
  let url: string | null = null;
  let dest: CheckedDestination | undefined;
  let authJson: string | null = null;
  const current =
    patch.url !== undefined ||
    patch.destination !== undefined ||
    patch.credentials !== undefined ||
    (patch.auth !== undefined && patch.auth !== null)
      ? await selectEndpoint(q, i.st.tables, { tenant, id })
      : undefined;
  if (current === undefined && patch.auth != null) throw new EndpointNotFoundError();
  // Replaced whole (null removes it); deliveries claimed before keep the auth they were claimed with.
  if (patch.auth != null) authJson = authColumn(w, patch.auth, current!.kind);
  if (patch.url !== undefined || patch.destination !== undefined || patch.credentials !== undefined) {
    // The kind never changes; the checks are the kind's. A missing endpoint is EndpointNotFoundError.
    if (!current) throw new EndpointNotFoundError();
    dest = checkEndpointDestination(
      {
        kind: current.kind,
        url: patch.url ?? current.url,
        destination: patch.destination ?? (current.kind === 'webhook' ? undefined : current.destination),
        // Kept unless replaced: given apart (null clears them), or as user info in a new URL.
        credentials:
          patch.credentials !== undefined
            ? patch.credentials
            : patch.url !== undefined && hasUserInfo(patch.url)
              ? undefined
              : current.credentials,
      },
      destinationChecks(w),
    );
    url = dest.url;
  }
  const row = await updateEndpointRow(q, i.st.tables, {
    tenant,
    id,
    ifVersion: input.ifVersion,
    url,
    eventTypes: patch.eventTypes ?? null,
    description: patch.description ?? null,
    format: patch.format ?? null,
    setRetrySchedule: patch.retrySchedule !== undefined,
    retrySchedule: patch.retrySchedule ?? null,
    setRateLimit: patch.rateLimit !== undefined,
    rateLimit: patch.rateLimit ?? null,
    ordered: patch.ordered ?? null,
    traceContext: patch.traceContext ?? null,
    headersJson: patch.headers === undefined ? null : JSON.stringify(patch.headers),
    setFilter: patch.filter !== undefined,
    ...filterColumns(patch.filter ?? null), // checked by Webhooks.updateEndpoint
    destinationJson: dest?.destinationJson ?? null,
    setCredentials: dest !== undefined,
    credentialsJson: dest?.credentialsJson ?? null,
    setAuth: patch.auth !== undefined,
    authJson,
    nowIso: nowIso(w),
  });
  if (row) return toEndpoint(row, i.now());
  await mustExist(w, q, input);
  return undefined;
}

/** Webhooks.deleteEndpoint, after the input check. */
export async function deleteEndpointFor(w: Webhooks, tx: Tx, input: DeleteEndpointInput): Promise<boolean> {
  // The tenant's endpoint count goes down in the statement that deletes (createEndpoint's limit).
  const deleted = await deleteEndpointRow(tx, internalsOf(w).st.tables, {
    tenant: input.tenant,
    id: input.id,
    ifVersion: input.ifVersion ?? null,
    nowIso: nowIso(w),
  });
  if (deleted) return true;
  await mustExist(w, tx, input);
  return false;
}

/** Webhooks.enableEndpoint, after the input check. */
export async function enableEndpointFor(w: Webhooks, q: Queryable, ref: EndpointRef): Promise<Endpoint> {
  const i = internalsOf(w);
  const row = await enableEndpointRow(q, i.st.tables, { tenant: ref.tenant, id: ref.id, nowIso: nowIso(w) });
  if (!row) throw new EndpointNotFoundError();
  return toEndpoint(row, i.now());
}

/** Webhooks.disableEndpoint, after the input check. */
export async function disableEndpointFor(w: Webhooks, tx: Tx, input: DisableEndpointInput): Promise<boolean> {
  const { tenant, id, reason } = input;
  const now = nowIso(w);
  const row = await disableEndpointRow(tx, internalsOf(w).st, { tenant, id, reason, nowIso: now });
  if (!row) {
    await mustExist(w, tx, input);
    return false;
  }
  await w.publish(tx, {
    tenant,
    type: 'endpoint.disabled',
    data: { endpointId: id, url: row.url, reason, disabledAt: now, failedDeliveries: row.failed },
    resource: `webhook_endpoint:${id}`,
    exceptEndpointId: id,
  });
  return true;
}

/** Webhooks.rotateSecret, after the input check. */
export async function rotateSecretFor(
  w: Webhooks,
  q: Queryable,
  input: RotateSecretInput,
): Promise<{ endpoint: Endpoint; secret: string }> {
  const i = internalsOf(w);
  const now = i.now();
  const secret = generateSecret();
  const until = new Date(now + (input.overlapMs ?? 86_400_000)).toISOString();
  const row = await rotateSecretRow(q, i.st.tables, {
    tenant: input.tenant,
    id: input.id,
    secret,
    untilIso: until,
    nowIso: new Date(now).toISOString(),
  });
  if (!row) throw new EndpointNotFoundError();
  return { endpoint: toEndpoint(row, i.now()), secret };
}
