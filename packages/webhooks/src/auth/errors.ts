// The write-time error of receiver authentication. A failure at delivery time is not an error of
// the API: it is a recorded attempt with a stable code (token.ts `auth_token_failed`, the guard's
// `tls_error`, or the receiver's own `http_401`).
import { brandError } from '@surety/core';
import { WebhookError } from '../errors.js';

/**
 * An endpoint `auth` that cannot be used: an unknown type, a missing or overlong field, control
 * characters, a token URL the SSRF rules refuse, a PEM that does not parse, a private key that does
 * not match the certificate, an encrypted key, or an expired certificate. Messages never quote a secret.
 */
export class InvalidAuthError extends WebhookError {
  declare readonly code: 'SURETY_INVALID_AUTH';
  constructor(
    message: string,
    /** Where, as JSON pointers into the input (`/auth/privateKey`), with messages. */
    readonly errors: { path: string; message: string }[] = [],
  ) {
    super('SURETY_INVALID_AUTH', message);
    this.name = 'InvalidAuthError';
  }
}

export const isInvalidAuthError = brandError(InvalidAuthError, 'surety.webhooks.error.SURETY_INVALID_AUTH');
