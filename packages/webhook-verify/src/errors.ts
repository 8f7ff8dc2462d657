import { brandError } from '@surety/core';
/**
 * The stable codes of {@link WebhookVerificationError}, one per cause. Receiver helpers send the same
 * code in their problem+json answer.
 */
export const WebhookErrorCode = {
  /** A required header (`webhook-signature`, and for Standard Webhooks `webhook-id` / `webhook-timestamp`) is absent or empty. */
  MissingHeader: 'SURETY_WEBHOOK_MISSING_HEADER',
  /** A header is there but cannot be parsed: no `t=`, two different `t=`, no signature entry of a known version. */
  MalformedHeader: 'SURETY_WEBHOOK_MALFORMED_HEADER',
  /** The timestamp is not a whole number of seconds since the epoch. */
  BadTimestamp: 'SURETY_WEBHOOK_BAD_TIMESTAMP',
  /** The timestamp is older than `now - toleranceSeconds`: a replay, or a delivery queued too long. */
  TimestampTooOld: 'SURETY_WEBHOOK_TIMESTAMP_TOO_OLD',
  /** The timestamp is later than `now + toleranceSeconds`: a clock far ahead, or a forged future timestamp. */
  TimestampTooNew: 'SURETY_WEBHOOK_TIMESTAMP_TOO_NEW',
  /**
   * Surety scheme: `webhook-id` differs from the `id` of the signed body. The scheme signs the
   * timestamp and the body, not the header: a header that disagrees with the body was changed.
   */
  IdMismatch: 'SURETY_WEBHOOK_ID_MISMATCH',
  /** Well-formed headers, but no signature matches any of the secrets. */
  NoMatchingSignature: 'SURETY_WEBHOOK_NO_MATCHING_SIGNATURE',
  /** A secret or key given to `sign` / `verify` is empty, not valid base64, or of the wrong kind for the format. */
  BadSecret: 'SURETY_WEBHOOK_BAD_SECRET',
} as const;

export type WebhookErrorCode = (typeof WebhookErrorCode)[keyof typeof WebhookErrorCode];

// Each class is branded with `Symbol.for('surety.<package>.error…')` by @surety/core's brandError:
// `instanceof` and the guards recognise an error made by another installed copy of this package.

/**
 * The one error `sign` and `verify` throw. Switch on `code`, never on `message`.
 * @example
 * try {
 *   await verify({ body, headers, secrets });
 * } catch (error) {
 *   if (isWebhookVerificationError(error) && error.code === 'SURETY_WEBHOOK_TIMESTAMP_TOO_OLD') …
 * }
 */
export class WebhookVerificationError extends Error {
  constructor(
    readonly code: WebhookErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'WebhookVerificationError';
  }
}

/**
 * Type guard for {@link WebhookVerificationError} (of any installed copy of this package).
 * @example
 * if (isWebhookVerificationError(e)) reply.code(401);
 */
export const isWebhookVerificationError = brandError(WebhookVerificationError, 'surety.webhook-verify.error');

/** Shorthand used inside the package. */
export function fail(code: WebhookErrorCode, message: string, cause?: unknown): never {
  throw new WebhookVerificationError(code, message, cause === undefined ? undefined : { cause });
}
