/** The JSON Schemas of the application routes (rendered into /openapi.json) and their answer's shape. */
import type { Application } from '@surety/webhooks';

/**
 * An application's id (`app_…`) or its uid, as the engine accepts them (1-100 characters: the
 * router's limit on a path parameter). Any such value that names nothing is a 404 (or, in a body,
 * 422 `unknown_application`), like one of another tenant.
 */
export const APPLICATION_REF = '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$';

/** `applicationId` of an endpoint create and `application` of a publish: an id or a uid. */
export const applicationRef = (description: string) =>
  ({ type: 'string', pattern: APPLICATION_REF, description }) as const;

export const applicationFields = {
  uid: {
    type: ['string', 'null'],
    pattern: APPLICATION_REF,
    description:
      'Your own id for this customer, unique among your applications: 1-100 of A-Z a-z 0-9 . _ -, ' +
      'starting with a letter or digit, never with `app_` (422 `application_uid_reserved`). Every ' +
      'route that takes an application takes its uid in place of its id.',
  },
  name: { type: 'string', minLength: 1, maxLength: 256 },
  metadata: {
    type: 'object',
    maxProperties: 50,
    propertyNames: { minLength: 1, maxLength: 40 },
    additionalProperties: { type: 'string', maxLength: 500 },
    description:
      'Your own string values (at most 50, keys up to 40 characters, values up to 500); kept as sent.',
  },
} as const;

export const applicationSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { type: 'string', const: 'application' },
    uid: { type: ['string', 'null'] },
    name: { type: 'string' },
    metadata: { type: 'object', additionalProperties: { type: 'string' } },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
} as const;

export const presentApplication = (a: Application) => ({
  id: a.id,
  object: 'application',
  uid: a.uid,
  name: a.name,
  metadata: a.metadata,
  createdAt: a.createdAt,
  updatedAt: a.updatedAt,
});
