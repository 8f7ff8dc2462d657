// The endpoint writes behind Webhooks' methods that need more than their statement: a URL check,
// a new secret, the not-found rule after a version mismatch.
import type { Queryable } from '@surety/db';
import { generateSecret } from '@surety/webhook-verify';
import { EndpointLimitError, EndpointNotFoundError } from './errors.js';
import { newId } from './ids.js';
import { internalsOf } from './internals.js';
import { toEndpoint } from './sql/endpoint-row.js';
import { insertEndpoint, rotateSecretRow, updateEndpointRow } from './sql/endpoints.js';
import type { CreateEndpointInput, Endpoint, SecretEntry } from './types.js';
import type { Webhooks } from './webhooks.js';

/** What `updateEndpoint` may change. */
export type EndpointPatch = Partial<
  Pick<
    CreateEndpointInput,
    | 'url'
    | 'eventTypes'
    | 'description'
    | 'format'
    | 'retrySchedule'
    | 'rateLimit'
    | 'ordered'
    | 'traceContext'
  >
>;

/** Webhooks.createEndpoint, after the input check. */
export async function createEndpointFor(
  w: Webhooks,
  q: Queryable,
  input: CreateEndpointInput,
): Promise<{ endpoint: Endpoint; secret: string }> {
  const i = internalsOf(w);
  const url = w.checkUrl(input.url);
  const secret = generateSecret();
  const now = new Date(i.now()).toISOString();
  const row = await insertEndpoint(q, i.st.tables, {
    tenant: input.tenant,
    id: newId('we'),
    url,
    description: input.description ?? '',
    eventTypes: input.eventTypes,
    format: input.format ?? 'surety',
    secretsJson: JSON.stringify([{ secret, expiresAt: null }] satisfies SecretEntry[]),
    retrySchedule: input.retrySchedule ?? null,
    rateLimit: input.rateLimit ?? null,
    ordered: input.ordered ?? false,
    nowIso: now,
    traceContext: input.traceContext ?? true,
    maxEndpointsPerTenant: w.maxEndpointsPerTenant,
  });
  if (!row) throw new EndpointLimitError(w.maxEndpointsPerTenant);
  return { endpoint: toEndpoint(row, i.now()), secret };
}

/** Webhooks.updateEndpoint, after the input check. */
export async function updateEndpointFor(
  w: Webhooks,
  q: Queryable,
  input: { tenant: string; id: string; expectedVersion: number; patch: EndpointPatch },
): Promise<Endpoint | undefined> {
  const i = internalsOf(w);
  const { tenant, id, patch } = input;
  const url = patch.url === undefined ? null : w.checkUrl(patch.url);
  const row = await updateEndpointRow(q, i.st.tables, {
    tenant,
    id,
    ifVersion: input.expectedVersion,
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
    nowIso: new Date(i.now()).toISOString(),
  });
  if (row) return toEndpoint(row, i.now());
  await w.getEndpoint(q, tenant, id); // throws when it does not exist
  return undefined;
}

/** Webhooks.rotateSecret, after the input check. */
export async function rotateSecretFor(
  w: Webhooks,
  q: Queryable,
  input: { tenant: string; id: string; overlapMs: number },
): Promise<{ endpoint: Endpoint; secret: string }> {
  const i = internalsOf(w);
  const now = i.now();
  const secret = generateSecret();
  const until = new Date(now + input.overlapMs).toISOString();
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
