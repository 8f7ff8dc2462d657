import type { Problem } from '@surety/core';
import { isWebhookVerificationError, WebhookErrorCode } from './errors.js';

// The problem+json shape and builder are @surety/core's, shared by every package; re-exported here
// because they have always been part of this package's API.
export { PROBLEM_CONTENT_TYPE, problemBody } from '@surety/core';

/**
 * Default cap on a webhook body read by the receiver helpers, in bytes.
 * @default 1048576 (1 MiB)
 */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** Codes the receiver helpers answer with beside those of `WebhookErrorCode`. */
export const ReceiverErrorCode = {
  /** The body is larger than `bodyLimit` (413). */
  BodyTooLarge: 'SURETY_WEBHOOK_BODY_TOO_LARGE',
  /** The body verified but is not the JSON its content type says (400; Express only, the others leave parsing to the framework). */
  InvalidJson: 'SURETY_WEBHOOK_INVALID_JSON',
  /** Another body parser consumed the request before the helper could see the raw bytes (500). */
  RawBodyUnavailable: 'SURETY_WEBHOOK_RAW_BODY_UNAVAILABLE',
} as const;

/** An RFC 9457 problem as the helpers send it (`@surety/core`'s `Problem`); `code` is the stable part to match on. */
export type WebhookProblem = Problem;

const TITLES: Record<string, [status: number, title: string]> = {
  [WebhookErrorCode.MissingHeader]: [400, 'Webhook header missing'],
  [WebhookErrorCode.MalformedHeader]: [400, 'Webhook header malformed'],
  [WebhookErrorCode.BadTimestamp]: [400, 'Webhook timestamp invalid'],
  [WebhookErrorCode.TimestampTooOld]: [401, 'Webhook timestamp too old'],
  [WebhookErrorCode.TimestampTooNew]: [401, 'Webhook timestamp too far in the future'],
  [WebhookErrorCode.NoMatchingSignature]: [401, 'Webhook signature invalid'],
  [WebhookErrorCode.IdMismatch]: [401, 'Webhook id does not match the signed body'],
  // The receiver's own configuration is wrong: not the sender's fault, and worth retrying once fixed.
  [WebhookErrorCode.BadSecret]: [500, 'Webhook secret misconfigured'],
  [ReceiverErrorCode.BodyTooLarge]: [413, 'Webhook body too large'],
  [ReceiverErrorCode.InvalidJson]: [400, 'Webhook body is not JSON'],
  [ReceiverErrorCode.RawBodyUnavailable]: [500, 'Webhook raw body unavailable'],
};

/** The problem for a code: 400 for unreadable headers, 401 for failed authentication. */
export function webhookProblem(code: string, detail: string): WebhookProblem {
  const [status, title] = TITLES[code] ?? [400, 'Webhook rejected'];
  return { status, code: problemCode(code), title, detail };
}

/**
 * The `code` of an HTTP problem for an error code: lower case without the `SURETY_` prefix
 * (`SURETY_WEBHOOK_TIMESTAMP_TOO_OLD` → `webhook_timestamp_too_old`), the style of every Surety API
 * answer; error objects keep their `SURETY_*` codes.
 */
export const problemCode = (code: string): string => code.replace(/^SURETY_/, '').toLowerCase();

/** The problem for an error thrown by `verify`, or undefined for any other error. */
export function problemForError(error: unknown): WebhookProblem | undefined {
  if (!isWebhookVerificationError(error)) return undefined;
  // A bad secret is the receiver's misconfiguration: do not echo its details to the sender.
  const detail =
    error.code === WebhookErrorCode.BadSecret ? 'The receiver cannot verify webhooks.' : error.message;
  return webhookProblem(error.code, detail);
}

/** True for `application/json` and `application/*+json`. */
export function isJsonType(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(contentType);
}
