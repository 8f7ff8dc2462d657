export {
  type AsyncApiDocument,
  type AsyncApiOptions,
  buildAsyncApi,
  DEFAULT_RETRY_SCHEDULE,
  SERVICE_CONTRACT_VERSION,
  serviceContract,
  toJson,
  toYaml,
  WEBHOOK_CHANNEL,
} from './asyncapi.js';
export { type DestinationChannel, withDestinations } from './asyncapi-destinations.js';
export { type ContractsCliOptions, runContractsCli } from './cli.js';
export { contractValidator } from './contract-validator.js';
export { type ContractDiff, diffContracts, formatReport, isAllowedChange } from './diff/contracts.js';
export type { ChangeKind, ContractChange } from './diff/types.js';
export { EVENT_TYPE_PATTERN, type EventEnvelope } from './envelope.js';
export { EventError, type EventErrorCode, type EventIssue, isEventError } from './errors.js';
export type {
  EventDefinition,
  RegisteredEvent,
  RegistryOptions,
  ValidationResult,
} from './event-definition.js';
export type { JsonSchema } from './json-schema.js';
export { createRegistry, EventRegistry, publishValidator } from './registry.js';
