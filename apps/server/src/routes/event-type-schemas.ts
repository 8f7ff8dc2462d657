/** The JSON Schemas of the event-type routes (rendered into /openapi.json) and the row → JSON mapping. */
import type { RegisteredEvent } from '@surety/events';
import type { EventTypeRow } from '../data/event-types.js';
import { COMPATIBILITY_MODES } from '../event-types/compatibility.js';
import { RESERVED_EVENT_TYPES } from '../event-types/tenant-types.js';
import { EVENT_TYPE_PATTERN } from './schemas.js';

export const nameParam = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', pattern: EVENT_TYPE_PATTERN, maxLength: 100 } },
} as const;

const editable = {
  description: { type: 'string', minLength: 1, maxLength: 2000 },
  schema: {
    type: 'object',
    description:
      "JSON Schema (draft-07) of the event's `data`, self-contained (no $ref), at most 32 KB; patterns must be anchored and linear-time (docs/event-types.md).",
  },
  compatibility: {
    type: 'string',
    enum: COMPATIBILITY_MODES,
    description:
      'Which schema changes are refused: `full` (default) keeps receivers of every version working, `backward` those written for the new schema, `forward` those written for an earlier one, `none` checks nothing.',
  },
} as const;

// `examples` sits in `patternProperties`: an object whose `properties` has both `schema` and
// `examples` reads, to OpenAPI linters (Spectral's oas3-valid-media-example), as a Media Type
// Object whose examples lack `value`. The validation is the same.
const examples = {
  '^examples$': {
    type: 'array',
    minItems: 1,
    maxItems: 10,
    items: { description: 'A `data` value.' },
    description:
      'Realistic `data` values (1 to 10); each must validate. The first is the example in the AsyncAPI document.',
  },
} as const;

/** POST body. */
export const createBody = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'description', 'schema', 'examples'],
  properties: {
    name: { type: 'string', pattern: EVENT_TYPE_PATTERN, maxLength: 100 },
    ...editable,
  },
  patternProperties: examples,
} as const;

/** PATCH body: the fields sent replace the stored ones. */
export const patchBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { ...editable, deprecated: { type: 'boolean' } },
  patternProperties: examples,
} as const;

export const eventTypeSchema = {
  type: 'object',
  properties: {
    object: { type: 'string', const: 'event_type' },
    name: { type: 'string' },
    description: { type: 'string' },
    owner: { type: 'string', enum: ['service', 'tenant'] },
    reserved: { type: 'boolean', description: 'An operational type only the service publishes.' },
    schema: { type: 'object', additionalProperties: true },
    compatibility: { type: 'string', enum: COMPATIBILITY_MODES },
    deprecated: { type: 'boolean' },
    version: { type: 'integer' },
    createdAt: { type: ['string', 'null'] },
    updatedAt: { type: ['string', 'null'] },
  },
  patternProperties: { '^examples$': { type: 'array', items: { description: 'A `data` value.' } } },
} as const;

/** A tenant's type as the API answers it. */
export const presentTenantType = (r: EventTypeRow) => ({
  object: 'event_type' as const,
  name: r.name,
  description: r.description,
  owner: 'tenant' as const,
  reserved: false,
  schema: r.schema,
  examples: r.examples,
  compatibility: r.compatibility,
  deprecated: r.deprecated,
  version: r.version,
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
});

/** One of the service's types (from code: no dates; changed only by a release, under `full`). */
export const presentServiceType = (e: RegisteredEvent) => ({
  object: 'event_type' as const,
  name: e.type,
  description: e.description,
  owner: 'service' as const,
  reserved: RESERVED_EVENT_TYPES.has(e.type),
  schema: e.schema,
  examples: [e.sample],
  compatibility: 'full' as const,
  deprecated: e.deprecated,
  version: e.version,
  createdAt: null,
  updatedAt: null,
});
