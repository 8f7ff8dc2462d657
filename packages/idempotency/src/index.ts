export type {
  AcquireResult,
  IdempotencyOptions,
  IdempotencyRequest,
  Lease,
  Outcome,
  StoredResponse,
} from './engine.js';
export { createIdempotency, Idempotency, isFinalStatus } from './engine.js';
export {
  IdempotencyError,
  isLeaseLostError,
  isStoreUnavailableError,
  LeaseLostError,
  StoreUnavailableError,
} from './errors.js';
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
