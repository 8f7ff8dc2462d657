export type { CryptoBackend } from './crypto.js';
export {
  isWebhookVerificationError,
  WebhookErrorCode,
  WebhookVerificationError,
} from './errors.js';
export type { HeadersLike } from './headers.js';
export type { WebhookProblem } from './http.js';
export {
  DEFAULT_BODY_LIMIT,
  PROBLEM_CONTENT_TYPE,
  problemBody,
  problemForError,
  ReceiverErrorCode,
  webhookProblem,
} from './http.js';
export type { Secret, WebhookFormat } from './keys.js';
export { PUBLIC_KEY_PREFIX, SECRET_PREFIX, SIGNING_KEY_PREFIX } from './keys.js';
export { generateSecret, generateSigningKey } from './secrets.js';
export type { SignInput, WebhookHeaders } from './sign.js';
export { sign, signSync } from './sign.js';
export type { VerifiedWebhook, Verifier, VerifierOptions, VerifyInput } from './verify.js';
export { createVerifier, DEFAULT_TOLERANCE_SECONDS, verify, verifySync } from './verify.js';
