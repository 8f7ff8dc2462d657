// The application methods behind Webhooks (docs/applications.md): the checks on uid, name and
// metadata, and the not-found rule (a lookup answers undefined; a mutation of an application that
// does not exist throws ApplicationNotFoundError; a version mismatch is an answer, not an error).
import { type Queryable, sqlState, type Tx } from '@surety/db';
import { nowIso, type WebhooksContext } from '../context.js';
import { ApplicationNotFoundError, ApplicationUidTakenError, InvalidInputError } from '../errors.js';
import { newId } from '../ids.js';
import { assertStorable } from '../input.js';
import { BY_TIME, byTimeKey, decode, type Page, type PageInput, page } from '../reads/pages.js';
import {
  type ApplicationRow,
  deleteApplicationEndpoints,
  deleteApplicationRow,
  insertApplication,
  selectApplication,
  selectApplications,
  updateApplicationRow,
} from '../sql/applications.js';
import { iso } from '../sql/values.js';
import type {
  Application,
  ApplicationRef,
  CreateApplicationInput,
  DeleteApplicationInput,
  UpdateApplicationInput,
} from '../types.js';

export interface ListApplicationsInput extends PageInput {
  tenant: string;
}

// Safe in a URL path segment as it is (the service's /v1/applications/{id or uid}, whose router
// takes path parameters of up to 100 characters); the first
// character is a letter or digit, so `.` and `..` are not uids. `app_` is the ids' prefix: a
// reference is an id or a uid by its first four characters (sql/applications.ts refColumn).
const UID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const MAX_NAME = 256;

function refuse(path: string, message: string): never {
  throw new InvalidInputError(`${path}: ${message}`, [{ path, message }]);
}

function checkUid(uid: unknown): string | null {
  if (uid === undefined || uid === null) return null;
  if (typeof uid !== 'string' || !UID.test(uid)) {
    refuse('/uid', 'must be 1-100 of A-Z a-z 0-9 . _ -, starting with a letter or digit');
  }
  if (uid.startsWith('app_')) refuse('/uid', 'may not start with app_ (the prefix of application ids)');
  return uid;
}

function checkName(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_NAME) {
    refuse('/name', `must be a string of 1-${MAX_NAME} characters`);
  }
  return name;
}

function checkMetadata(metadata: unknown): string {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    refuse('/metadata', 'must be an object of string values');
  }
  for (const [key, value] of Object.entries(metadata)) {
    if (typeof value !== 'string') refuse(`/metadata/${key}`, 'must be a string');
  }
  return JSON.stringify(metadata);
}

const toApplication = (r: ApplicationRow): Application => ({
  id: r.id,
  uid: r.uid,
  name: r.name,
  metadata: r.metadata,
  version: r.version,
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
});

/** Webhooks.createApplication. */
export async function createApplication(
  ctx: WebhooksContext,
  q: Queryable,
  input: CreateApplicationInput,
): Promise<Application> {
  assertStorable({ ...input });
  const uid = checkUid(input.uid);
  const row = await insertApplication(q, ctx.st.tables, {
    tenant: input.tenant,
    id: newId('app'),
    uid,
    name: checkName(input.name),
    metadataJson: checkMetadata(input.metadata ?? {}),
    nowIso: nowIso(ctx),
  });
  if (!row) throw new ApplicationUidTakenError(uid!);
  return toApplication(row);
}

/** Webhooks.getApplication: undefined when the tenant has no application with this id or uid. */
export function getApplication(
  ctx: WebhooksContext,
  q: Queryable,
  ref: ApplicationRef,
): Promise<Application | undefined> {
  assertStorable({ tenant: ref.tenant, id: ref.id });
  return findApplication(ctx, q, ref);
}

/** The application, or undefined (the input checked already). */
export async function findApplication(
  ctx: WebhooksContext,
  q: Queryable,
  ref: ApplicationRef,
): Promise<Application | undefined> {
  const row = await selectApplication(q, ctx.st.tables, { tenant: ref.tenant, ref: ref.id });
  return row ? toApplication(row) : undefined;
}

/**
 * The id of the application named by id or uid in the input field `field`;
 * ApplicationNotFoundError (naming the field) when there is none.
 */
export async function resolveApplication(
  ctx: WebhooksContext,
  q: Queryable,
  input: { tenant: string; ref: string; field: 'applicationId' | 'application' },
): Promise<string> {
  const found = await findApplication(ctx, q, { tenant: input.tenant, id: input.ref });
  if (!found) throw new ApplicationNotFoundError(input.field);
  return found.id;
}

/** Webhooks.listApplications: the tenant's applications, newest first. */
export async function listApplications(
  ctx: WebhooksContext,
  q: Queryable,
  input: ListApplicationsInput,
): Promise<Page<Application>> {
  assertStorable({ tenant: input.tenant });
  const limit = input.limit ?? 20;
  const rows = await selectApplications(q, ctx.st.tables, {
    tenant: input.tenant,
    limit: limit + 1,
    after: input.cursor ? decode(BY_TIME, input.cursor) : null,
  });
  return page(rows, limit, toApplication, BY_TIME, byTimeKey);
}

/** Webhooks.updateApplication. */
export async function updateApplication(
  ctx: WebhooksContext,
  q: Queryable,
  input: UpdateApplicationInput,
): Promise<Application | undefined> {
  assertStorable({ tenant: input.tenant, id: input.id, ...input.patch });
  const { patch } = input;
  const uid = checkUid(patch.uid);
  const current = await findApplication(ctx, q, input);
  if (!current) throw new ApplicationNotFoundError();
  // Checked first, so that the answer leaves the caller's transaction usable; only an update racing
  // another that takes the same uid meets the index below.
  if (uid !== null && uid !== current.uid) {
    const holder = await findApplication(ctx, q, { tenant: input.tenant, id: uid });
    if (holder) throw new ApplicationUidTakenError(uid);
  }
  try {
    const row = await updateApplicationRow(q, ctx.st.tables, {
      tenant: input.tenant,
      id: current.id,
      ifVersion: input.ifVersion,
      setUid: patch.uid !== undefined,
      uid,
      name: patch.name === undefined ? null : checkName(patch.name),
      metadataJson: patch.metadata === undefined ? null : checkMetadata(patch.metadata),
      nowIso: nowIso(ctx),
    });
    if (row) return toApplication(row);
  } catch (error) {
    // The uid index: an UPDATE has no ON CONFLICT, so the violation is the answer (the statement
    // fails and a transaction it was in is aborted; the caller's rollback follows the error).
    if (sqlState(error) === '23505' && uid !== null) throw new ApplicationUidTakenError(uid);
    throw error;
  }
  if (!(await findApplication(ctx, q, input))) throw new ApplicationNotFoundError();
  return undefined;
}

/**
 * Webhooks.deleteApplication. The application's row is locked first: an
 * endpoint create for it waits (its foreign key check takes a key-share lock) and then fails with
 * ApplicationNotFoundError, so the endpoints deleted are all it will ever have.
 */
export async function deleteApplication(
  ctx: WebhooksContext,
  tx: Tx,
  input: DeleteApplicationInput,
): Promise<boolean> {
  assertStorable({ tenant: input.tenant, id: input.id });
  const t = ctx.st.tables;
  const row = await selectApplication(tx, t, { tenant: input.tenant, ref: input.id, forUpdate: true });
  if (!row) throw new ApplicationNotFoundError();
  if (input.ifVersion !== undefined && row.version !== input.ifVersion) return false;
  await deleteApplicationEndpoints(tx, t, {
    tenant: input.tenant,
    applicationId: row.id,
    nowIso: nowIso(ctx),
  });
  return deleteApplicationRow(tx, t, { tenant: input.tenant, id: row.id });
}
