// The endpoint operations behind Webhooks' methods: the checks (checks.ts), a new secret, and the not-found rule
// (a mutation of an endpoint that does not exist throws EndpointNotFoundError; a version mismatch
// is an answer, not an error).
import { type Queryable, sqlState, type Tx } from '@surety/db';
import { generateSecret } from '@surety/webhook-verify';
import { resolveApplication } from '../applications/operations.js';
import { nowIso, type WebhooksContext } from '../context.js';
import { type CheckedDestination, checkEndpointDestination } from '../destinations/config.js';
import { ApplicationNotFoundError, EndpointLimitError, EndpointNotFoundError } from '../errors.js';
import { newId } from '../ids.js';
import { assertStorable } from '../input.js';
import { publish } from '../publishing/publish.js';
import { toEndpoint } from '../sql/endpoint-row.js';
import {
  deleteEndpointRow,
  enableEndpointRow,
  insertEndpoint,
  rotateSecretRow,
  selectEndpoint,
  updateEndpointRow,
} from '../sql/endpoints.js';
import { disableEndpointRow } from '../sql/health.js';
import type {
  CreateEndpointInput,
  DeleteEndpointInput,
  DisableEndpointInput,
  Endpoint,
  EndpointRef,
  RotateSecretInput,
  SecretEntry,
  UpdateEndpointInput,
} from '../types.js';
import { authColumn, checkEndpointFields, destinationChecks, filterColumns, hasUserInfo } from './checks.js';

/** Webhooks.getEndpoint: undefined when it is not the tenant's. */
export function getEndpoint(
  ctx: WebhooksContext,
  q: Queryable,
  ref: EndpointRef,
): Promise<Endpoint | undefined> {
  assertStorable({ tenant: ref.tenant, id: ref.id });
  return findEndpoint(ctx, q, ref);
}

/** The endpoint, or undefined (the input checked already). */
export async function findEndpoint(
  ctx: WebhooksContext,
  q: Queryable,
  ref: EndpointRef,
): Promise<Endpoint | undefined> {
  const row = await selectEndpoint(q, ctx.st.tables, { tenant: ref.tenant, id: ref.id });
  return row ? toEndpoint(row, ctx.now()) : undefined;
}

/** Throws EndpointNotFoundError unless the endpoint exists (after a write that changed nothing). */
async function mustExist(ctx: WebhooksContext, q: Queryable, ref: EndpointRef): Promise<void> {
  if (!(await findEndpoint(ctx, q, ref))) throw new EndpointNotFoundError();
}

/** Webhooks.createEndpoint. */
export async function createEndpoint(
  ctx: WebhooksContext,
  q: Queryable,
  input: CreateEndpointInput,
): Promise<{ endpoint: Endpoint; secret: string }> {
  checkEndpointFields(input); // first: a NUL in a header value is a header problem
  assertStorable({ ...input });
  const dest = checkEndpointDestination(input, destinationChecks(ctx));
  const applicationId =
    input.applicationId === undefined
      ? null
      : await resolveApplication(ctx, q, {
          tenant: input.tenant,
          ref: input.applicationId,
          field: 'applicationId',
        });
  const secret = generateSecret();
  const row = await insertEndpoint(q, ctx.st.tables, {
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
    nowIso: nowIso(ctx),
    traceContext: input.traceContext ?? true,
    headersJson: JSON.stringify(input.headers ?? {}), // checked by Webhooks.createEndpoint
    ...filterColumns(input.filter ?? null), // checked by Webhooks.createEndpoint
    authJson: authColumn(ctx, input.auth, dest.kind),
    maxEndpointsPerTenant: ctx.maxEndpointsPerTenant,
    applicationId,
  }).catch((error: unknown) => {
    // The foreign key: the application was deleted between the lookup and the insert.
    throw sqlState(error) === '23503' ? new ApplicationNotFoundError('applicationId') : error;
  });
  if (!row) throw new EndpointLimitError(ctx.maxEndpointsPerTenant);
  return { endpoint: toEndpoint(row, ctx.now()), secret };
}

/** Webhooks.updateEndpoint. */
export async function updateEndpoint(
  ctx: WebhooksContext,
  q: Queryable,
  input: UpdateEndpointInput,
): Promise<Endpoint | undefined> {
  checkEndpointFields(input.patch);
  assertStorable({ tenant: input.tenant, id: input.id, ...input.patch });
  const { tenant, id, patch } = input;
  let url: string | null = null;
  let dest: CheckedDestination | undefined;
  let authJson: string | null = null;
  const current =
    patch.url !== undefined ||
    patch.destination !== undefined ||
    patch.credentials !== undefined ||
    (patch.auth !== undefined && patch.auth !== null)
      ? await selectEndpoint(q, ctx.st.tables, { tenant, id })
      : undefined;
  if (current === undefined && patch.auth != null) throw new EndpointNotFoundError();
  // Replaced whole (null removes it); deliveries claimed before keep the auth they were claimed with.
  if (patch.auth != null) authJson = authColumn(ctx, patch.auth, current!.kind);
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
      destinationChecks(ctx),
    );
    url = dest.url;
  }
  const row = await updateEndpointRow(q, ctx.st.tables, {
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
    nowIso: nowIso(ctx),
  });
  if (row) return toEndpoint(row, ctx.now());
  await mustExist(ctx, q, input);
  return undefined;
}

/** Webhooks.deleteEndpoint. */
export async function deleteEndpoint(
  ctx: WebhooksContext,
  tx: Tx,
  input: DeleteEndpointInput,
): Promise<boolean> {
  assertStorable({ tenant: input.tenant, id: input.id });
  // The tenant's endpoint count goes down in the statement that deletes (createEndpoint's limit).
  const deleted = await deleteEndpointRow(tx, ctx.st.tables, {
    tenant: input.tenant,
    id: input.id,
    ifVersion: input.ifVersion ?? null,
    nowIso: nowIso(ctx),
  });
  if (deleted) return true;
  await mustExist(ctx, tx, input);
  return false;
}

/** Webhooks.enableEndpoint. */
export async function enableEndpoint(
  ctx: WebhooksContext,
  q: Queryable,
  ref: EndpointRef,
): Promise<Endpoint> {
  assertStorable({ tenant: ref.tenant, id: ref.id });
  const row = await enableEndpointRow(q, ctx.st.tables, {
    tenant: ref.tenant,
    id: ref.id,
    nowIso: nowIso(ctx),
  });
  if (!row) throw new EndpointNotFoundError();
  return toEndpoint(row, ctx.now());
}

/** Webhooks.disableEndpoint. */
export async function disableEndpoint(
  ctx: WebhooksContext,
  tx: Tx,
  input: DisableEndpointInput,
): Promise<boolean> {
  assertStorable({ tenant: input.tenant, id: input.id, reason: input.reason });
  const { tenant, id, reason } = input;
  const now = nowIso(ctx);
  const row = await disableEndpointRow(tx, ctx.st, { tenant, id, reason, nowIso: now });
  if (!row) {
    await mustExist(ctx, tx, input);
    return false;
  }
  await publish(ctx, tx, {
    tenant,
    type: 'endpoint.disabled',
    data: { endpointId: id, url: row.url, reason, disabledAt: now, failedDeliveries: row.failed },
    resource: `webhook_endpoint:${id}`,
    exceptEndpointId: id,
  });
  return true;
}

/** Webhooks.rotateSecret. */
export async function rotateSecret(
  ctx: WebhooksContext,
  q: Queryable,
  input: RotateSecretInput,
): Promise<{ endpoint: Endpoint; secret: string }> {
  assertStorable({ tenant: input.tenant, id: input.id });
  const now = ctx.now();
  const secret = generateSecret();
  const until = new Date(now + (input.overlapMs ?? 86_400_000)).toISOString();
  const row = await rotateSecretRow(q, ctx.st.tables, {
    tenant: input.tenant,
    id: input.id,
    secret,
    untilIso: until,
    nowIso: new Date(now).toISOString(),
  });
  if (!row) throw new EndpointNotFoundError();
  return { endpoint: toEndpoint(row, ctx.now()), secret };
}
