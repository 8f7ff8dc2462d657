// @surety/webhooks: the transactional outbox, delivery workers and the SSRF guard.
export type { Envelope } from './envelope.js';
export { envelopeJson } from './envelope.js';
export {
  EndpointLimitError,
  EndpointNotFoundError,
  InvalidEventError,
  InvalidInputError,
  isEndpointLimitError,
  isEndpointNotFoundError,
  isInvalidEventError,
  isInvalidInputError,
  WebhookError,
} from './errors.js';
export { newId } from './ids.js';
export { migrations } from './migrations.js';
export type { UnstorableHandling, UnstorableOutcome } from './outcome-writer.js';
export { isPgText, toPgText } from './pg-text.js';
export type { AttemptRecord, DeliveryRecord, EndpointHealth, EventRecord, Page } from './queries.js';
export {
  deliveryNumber,
  endpointHealth,
  getEvent,
  listAttempts,
  listDeliveries,
  listEndpoints,
  listEvents,
} from './queries.js';
export { DEFAULT_SCHEDULE, nextDelay, parseRetryAfter, parseSchedule } from './schedule.js';
export * from './ssrf/index.js';
export type {
  CircuitState,
  CreateEndpointInput,
  Endpoint,
  PublishedEvent,
  PublishInput,
  SecretEntry,
  WebhooksOptions,
} from './webhooks.js';
export { notifyChannel, toEndpoint, Webhooks } from './webhooks.js';
export type {
  AttemptEvent,
  AttemptOutcome,
  DeliveryWorkerOptions,
  PostFn,
  WorkerEventMap,
} from './worker.js';
export { createDeliveryWorker, DeliveryWorker } from './worker.js';
