// @surety/webhooks: the transactional outbox and the delivery workers. The SSRF guard is its own
// subpath (`@surety/webhooks/ssrf`), id helpers `@surety/webhooks/ids`, test helpers
// `@surety/webhooks/testing`; statements, row mappers and table names stay inside the package.
export type { AttemptErrorCode, NotSentCode } from './classify.js';
export type { Envelope } from './envelope.js';
export { envelopeJson } from './envelope.js';
export type { WebhookErrorCode } from './errors.js';
export {
  EndpointLimitError,
  EndpointNotFoundError,
  InvalidEventError,
  InvalidInputError,
  isEndpointLimitError,
  isEndpointNotFoundError,
  isInvalidEventError,
  isInvalidInputError,
  isWebhookError,
  WebhookError,
} from './errors.js';
export { migrations } from './migrations.js';
export type { UnstorableHandling, UnstorableOutcome } from './outcome-writer.js';
export type { HeldWindow, MaintainOptions, MaintenanceReport } from './partitions.js';
export type {
  AttemptRecord,
  DeliveryRecord,
  EndpointHealth,
  EventRecord,
  EventRef,
  ListAttemptsInput,
  ListDeliveriesInput,
  ListEndpointsInput,
  ListEventsInput,
  Page,
  PageInput,
} from './queries.js';
export { DEFAULT_SCHEDULE, nextDelay, parseRetryAfter, parseSchedule } from './schedule.js';
export type { Backlog } from './sql/backlog.js';
// The engine's allow-list option (WebhooksOptions.allowList) is configured from the root; the
// guard itself is `@surety/webhooks/ssrf`.
export { ALLOWED_CIDRS_ENV, allowListFromEnv, parseAllowList } from './ssrf/allow-list.js';
export type { AllowList } from './ssrf/classify.js';
export type {
  CircuitState,
  CreateEndpointInput,
  DeleteEndpointInput,
  DisableEndpointInput,
  Endpoint,
  EndpointPatch,
  EndpointRef,
  PublishedEvent,
  PublishInput,
  RecoverEndpointInput,
  ReplayEventInput,
  RotateSecretInput,
  SecretEntry,
  UpdateEndpointInput,
  WebhooksOptions,
} from './types.js';
export { Webhooks } from './webhooks.js';
export type {
  AttemptEvent,
  AttemptOutcome,
  DeliveryWorkerOptions,
  PostFn,
  WorkerEventMap,
} from './worker.js';
export { createDeliveryWorker, DeliveryWorker } from './worker.js';
