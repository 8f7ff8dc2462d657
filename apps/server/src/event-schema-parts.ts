// Schema pieces the service's event definitions share (service-events.ts, operational-events.ts).
import type { JsonSchema } from '@surety/events';

export const dateTime = (description: string): JsonSchema => ({
  type: 'string',
  format: 'date-time',
  description,
});
export const prefixedId = (prefix: string, description: string): JsonSchema => ({
  type: 'string',
  pattern: `^${prefix}_[0-9A-Za-z]{1,64}$`,
  description,
});
