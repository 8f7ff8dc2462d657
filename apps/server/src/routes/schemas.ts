/** JSON Schemas shared by the management routes (and rendered into /openapi.json). */

export const listQuery = (extra: Record<string, unknown> = {}) =>
  ({
    type: 'object',
    additionalProperties: false,
    properties: {
      limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
      cursor: { type: 'string', maxLength: 512 },
      ...extra,
    },
  }) as const;

export const listOf = (item: object) => ({
  type: 'object',
  properties: {
    object: { type: 'string', const: 'list' },
    data: { type: 'array', items: item },
    hasMore: { type: 'boolean' },
    nextCursor: { type: ['string', 'null'] },
  },
});

export const idParam = (pattern: string) =>
  ({ type: 'object', required: ['id'], properties: { id: { type: 'string', pattern } } }) as const;

export { EVENT_TYPE_PATTERN_SOURCE as EVENT_TYPE_PATTERN } from '@surety/core';

export const eventSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { type: 'string', const: 'event' },
    type: { type: 'string' },
    apiVersion: { type: 'string' },
    createdAt: { type: 'string' },
    sequence: { type: 'integer' },
    resource: { type: ['string', 'null'] },
    data: {},
    applicationId: {
      type: ['string', 'null'],
      description: 'The application it was published to (`app_…`); null for one of your own.',
    },
  },
} as const;

export const deliverySchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { type: 'string', const: 'delivery' },
    eventId: { type: 'string' },
    eventType: { type: ['string', 'null'] },
    endpointId: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
    attempts: { type: 'integer' },
    nextAttemptAt: { type: ['string', 'null'] },
    createdAt: { type: 'string' },
    completedAt: { type: ['string', 'null'] },
    lastStatus: { type: ['integer', 'null'] },
    lastError: { type: ['string', 'null'] },
  },
} as const;

export const attemptSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { type: 'string', const: 'attempt' },
    deliveryId: { type: 'string' },
    attempt: { type: 'integer' },
    startedAt: { type: 'string' },
    durationMs: { type: 'integer' },
    status: { type: ['integer', 'null'] },
    responseExcerpt: { type: ['string', 'null'] },
    errorCode: { type: ['string', 'null'] },
    errorMessage: { type: ['string', 'null'] },
  },
} as const;
