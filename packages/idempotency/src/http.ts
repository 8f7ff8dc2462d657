import type { Problem } from '@surety/core';
import { isStoreUnavailableError } from './errors.js';
import { checkKey } from './key.js';
import type { Seen, StoredResponse } from './types.js';

/**
 * Headers stored with a response and replayed: the ones that describe the representation.
 * @default ["content-type", "content-language", "content-location", "location", "etag", "last-modified"]
 */
export const DESCRIBING_HEADERS = [
  'content-type',
  'content-language',
  'content-location',
  'location',
  'etag',
  'last-modified',
] as const;

export const REPLAYED_HEADER = 'Idempotent-Replayed';

// The problem+json shape and builder are @surety/core's, shared by every package; re-exported here
// because they have always been part of this package's API.
export { PROBLEM_CONTENT_TYPE, type Problem, problemBody } from '@surety/core';

/** Picks the describing headers out of a header map (lower-case names, string values). */
export function describingHeaders(
  headers: Record<string, unknown> | Headers,
  names: readonly string[] = DESCRIBING_HEADERS,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = headers instanceof Headers ? headers.get(name) : headers[name];
    if (value === undefined || value === null) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

/** The Idempotency-Key header, validated; a Problem when it is invalid, or missing but required. */
export function readKey(
  value: string | readonly string[] | undefined,
  required: boolean,
): { kind: 'key'; key: string | undefined } | { kind: 'problem'; problem: Problem } {
  const checked = checkKey(value);
  if (!checked.ok) {
    return {
      kind: 'problem',
      problem: { status: 400, code: checked.code, title: 'Invalid Idempotency-Key', detail: checked.detail },
    };
  }
  if (checked.key === undefined && required) {
    return {
      kind: 'problem',
      problem: {
        status: 400,
        code: 'idempotency_key_missing',
        title: 'Idempotency-Key required',
        detail:
          'This request changes state and must carry an Idempotency-Key header: a unique value of 1-255 ' +
          'visible ASCII characters (a UUID v4 is a good choice), sent again unchanged on every retry.',
      },
    };
  }
  return { kind: 'key', key: checked.key };
}

/** The response for an outcome other than a fresh execution. */
export function outcomeResponse(outcome: Seen): StoredResponse | Problem {
  switch (outcome.kind) {
    case 'replayed':
      return { ...outcome.response, headers: { ...outcome.response.headers, [REPLAYED_HEADER]: 'true' } };
    case 'in_flight':
      return {
        status: 409,
        code: 'idempotency_key_in_use',
        title: 'Request in progress',
        detail: 'A request with this Idempotency-Key is still being processed; retry after the delay given.',
        headers: { 'retry-after': String(outcome.retryAfterSeconds) },
      };
    case 'mismatch':
      return {
        status: 422,
        code: 'idempotency_key_reused',
        title: 'Idempotency-Key reused',
        detail:
          'This Idempotency-Key was already used with a different request (method, path or body). ' +
          'Use a new key for a new operation.',
      };
  }
}

export const storeUnavailableProblem: Problem = {
  status: 503,
  code: 'idempotency_store_unavailable',
  title: 'Service unavailable',
  detail:
    'The idempotency store cannot be reached, so the request was not processed. Retry with the same key.',
  headers: { 'retry-after': '1' },
};

/** The Problem for an error thrown by the engine, or undefined when it is not the engine's. */
export function engineErrorProblem(error: unknown): Problem | undefined {
  return isStoreUnavailableError(error) ? storeUnavailableProblem : undefined;
}
