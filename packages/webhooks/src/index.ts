// @surety/webhooks: the transactional outbox and the delivery workers. The SSRF guard is its own
// subpath (`@surety/webhooks/ssrf`), id helpers `@surety/webhooks/ids`, test helpers
// `@surety/webhooks/testing`; statements, row mappers and table names stay inside the package.

export type { ListApplicationsInput } from './applications/operations.js';
export {
  type AttemptAuth,
  AUTH_LIMITS,
  AUTH_TOKEN_FAILED,
  AUTH_TYPES,
  AuthTokenError,
  type BasicAuthInput,
  type EndpointAuth,
  type EndpointAuthInput,
  InvalidAuthError,
  isInvalidAuthError,
  type MtlsAuthInput,
  type OAuth2AuthInput,
  type ReceiverAuthOptions,
} from './auth/index.js';
export type { PostFn } from './delivery/attempt.js';
export type { AttemptErrorCode, NotSentCode } from './delivery/classify.js';
export {
  isOperationalEventType,
  type MonitorOptions,
  type MonitorReport,
  OPERATIONAL_EVENT_TYPES,
  type OperationalEvent,
  type OperationalEventType,
  runMonitor,
} from './delivery/operational.js';
export type { UnstorableHandling, UnstorableOutcome } from './delivery/outcome-types.js';
export { createDeliveryWorker, DeliveryWorker } from './delivery/worker.js';
export type { AttemptEvent, AttemptOutcome, WorkerEventMap } from './delivery/worker-events.js';
export type { DeliveryWorkerOptions } from './delivery/worker-options.js';
export type {
  BrokerCredentials,
  Destination,
  DestinationKind,
  RedactedCredentials,
} from './destinations/config.js';
export { DESTINATION_KINDS } from './destinations/config.js';
export {
  type BrokerEndpointRow,
  BrokerError,
  type BrokerErrorCode,
  type BrokerPublisherOptions,
  type PublishFn,
  type SignedMessage,
} from './destinations/index.js';
export { MissingBrokerClientError } from './destinations/peers.js';
export type { Envelope } from './envelope.js';
export { envelopeJson } from './envelope.js';
export type { WebhookErrorCode } from './errors.js';
export {
  ApplicationNotFoundError,
  ApplicationUidTakenError,
  ClockSkewError,
  EndpointLimitError,
  EndpointNotFoundError,
  InvalidEventError,
  InvalidFilterError,
  InvalidHeadersError,
  InvalidInputError,
  isApplicationNotFoundError,
  isApplicationUidTakenError,
  isClockSkewError,
  isEndpointLimitError,
  isEndpointNotFoundError,
  isInvalidEventError,
  isInvalidFilterError,
  isInvalidHeadersError,
  isInvalidInputError,
  isNotPollEndpointError,
  isPollLimitError,
  isWebhookError,
  NotPollEndpointError,
  PollLimitError,
  WebhookError,
} from './errors.js';
export { FILTER_MAX_DATA_DEPTH } from './filter/depth.js';
export {
  type Comparison,
  evaluateFilter,
  FILTER_LIMITS,
  FILTER_ROOTS,
  type FilterDocument,
  type FilterLiteral,
  type FilterNode,
  parseFilter,
} from './filter/index.js';
export {
  MAX_HEADER_NAME,
  MAX_HEADER_VALUE,
  MAX_HEADERS,
  MAX_HEADERS_SIZE,
  RESERVED_HEADER_PREFIXES,
  RESERVED_HEADERS,
} from './headers.js';
export { migrations } from './migrations.js';
export type { AckPollInput, PollItem, PollPage, PollWaitsOptions, ReadPollInput } from './poll/index.js';
export { MAX_CURSOR_LENGTH, MAX_POLL_LIMIT, PollWaits } from './poll/index.js';
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
} from './reads/operations.js';
export type { Page, PageInput } from './reads/pages.js';
export type { HeldWindow, MaintainOptions, MaintenanceReport, WindowGap } from './retention/maintain.js';
export { DEFAULT_SCHEDULE, nextDelay, parseRetryAfter, parseSchedule } from './schedule.js';
export type { Backlog } from './sql/backlog.js';
// The engine's allow-list option (WebhooksOptions.allowList) is configured from the root; the
// guard itself is `@surety/webhooks/ssrf`.
export { ALLOWED_CIDRS_ENV, allowListFromEnv, parseAllowList } from './ssrf/allow-list.js';
export type { AllowList } from './ssrf/classify.js';
export type {
  Application,
  ApplicationPatch,
  ApplicationRef,
  CircuitState,
  CreateApplicationInput,
  CreateEndpointInput,
  DeleteApplicationInput,
  DeleteEndpointInput,
  DisableEndpointInput,
  Endpoint,
  EndpointFilter,
  EndpointPatch,
  EndpointRef,
  PublishedEvent,
  PublishInput,
  RecoverEndpointInput,
  ReplayEventInput,
  RotateSecretInput,
  SecretEntry,
  ThrottleState,
  UpdateApplicationInput,
  UpdateEndpointInput,
  WebhooksOptions,
} from './types.js';

import type { WebhooksOptions } from './types.js';
import { Webhooks } from './webhooks.js';

export { Webhooks };

/**
 * Creates the webhooks engine (the house's construction convention: `createX(options)`, the class
 * exported as its type). Call `migrate()` before the first use.
 * @example
 * const webhooks = createWebhooks({ sql, validate: registry.assertValid });
 * await webhooks.migrate();
 */
export const createWebhooks = (options: WebhooksOptions): Webhooks => new Webhooks(options);
