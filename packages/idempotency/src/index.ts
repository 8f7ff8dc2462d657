export type { Completer, CompleterOptions } from './completer.js';
export { CHANNELS } from './diagnostics.js';
export { createIdempotency, Idempotency } from './engine.js';
export type { IdempotencyErrorCode } from './errors.js';
export {
  EffectFailedError,
  EffectRetryLaterError,
  IdempotencyError,
  isEffectFailedError,
  isEffectRetryLaterError,
  isIdempotencyError,
  isLeaseLostError,
  isNoTransactionError,
  isStoreUnavailableError,
  LeaseLostError,
  NoTransactionError,
  StoreUnavailableError,
} from './errors.js';
export { isFinalStatus } from './final.js';
export type { FingerprintInput } from './fingerprint.js';
export { canonicalJson, fingerprint } from './fingerprint.js';
export type { Problem } from './http.js';
export {
  DESCRIBING_HEADERS,
  describingHeaders,
  outcomeResponse,
  PROBLEM_CONTENT_TYPE,
  problemBody,
  REPLAYED_HEADER,
  readKey,
} from './http.js';
export type { KeyCheck } from './key.js';
export { checkKey, deriveKey, MAX_KEY_LENGTH } from './key.js';
export { migrations } from './migrations.js';
export type { Flow, PhasedOperation } from './phases.js';
export { phasedOperation } from './phases.js';
export type { PurgeOptions } from './purge.js';
export type { AdapterOptions, AdapterOutcome, RunInput, RunResult } from './run.js';
export { errorAnswer, runIdempotent } from './run.js';
export type { BodyEncoding } from './stored-body.js';
export { BODY_OMITTED_HEADER } from './stored-body.js';
export type {
  AcquireResult,
  IdempotencyOptions,
  IdempotencyRequest,
  IdempotencyWarning,
  Lease,
  Outcome,
  StoredInfo,
  StoredResponse,
} from './types.js';
