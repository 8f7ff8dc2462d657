/**
 * The Idempotency-Key rules. Each function is given a path item (`$.paths[*]`) and looks at its
 * operations, so that path-level parameters count.
 */
import { createRulesetFunction, type IFunctionResult } from '@stoplight/spectral-core';
import { KEY_TTL, NATURALLY_IDEMPOTENT } from '../extensions.js';
import { documents, extension, headerParameter, type Json, operationsOf } from '../openapi.js';
import { finding, label, type Path } from './result.js';

const KEY = 'Idempotency-Key';

type Check = (o: { pathItem: Json; method: string; operation: Json; at: Path }) => IFunctionResult[];

/** A Spectral function running `check` on every operation of the path item it is given. */
function perOperation(check: Check) {
  return createRulesetFunction<unknown, null>(
    { input: null, options: null },
    (pathItem, _options, context) => {
      const results: IFunctionResult[] = [];
      for (const { method, operation } of operationsOf(pathItem)) {
        results.push(
          ...check({ pathItem: pathItem as Json, method, operation, at: [...context.path, method] }),
        );
      }
      return results;
    },
  );
}

/** Every POST declares the Idempotency-Key header, or says it is naturally idempotent. */
export const postIdempotencyKey = perOperation(({ pathItem, method, operation, at }) => {
  if (method !== 'post') return [];
  if (extension(NATURALLY_IDEMPOTENT, operation, pathItem) === true) return [];
  if (headerParameter(pathItem, operation, KEY)) return [];
  return [
    finding(
      at,
      `${label(method, at)} is unsafe and declares no ${KEY} header: add the parameter (in: header, name: ${KEY}), or mark the operation \`${NATURALLY_IDEMPOTENT}: true\` if repeating it is harmless.`,
    ),
  ];
});

/** An operation that takes Idempotency-Key documents 409 (in flight) and 422 (reused key). */
export const idempotencyConflicts = perOperation(({ pathItem, method, operation, at }) => {
  if (!headerParameter(pathItem, operation, KEY)) return [];
  const results: IFunctionResult[] = [];
  if (!documents(operation, 409))
    results.push(
      finding(
        [...at, 'responses'],
        `${label(method, at)} takes ${KEY} but documents no 409: add the answer to a retry that arrives while the first request is still in flight (409, with Retry-After).`,
      ),
    );
  if (!documents(operation, 422))
    results.push(
      finding(
        [...at, 'responses'],
        `${label(method, at)} takes ${KEY} but documents no 422: add the answer to a key reused with a different request body.`,
      ),
    );
  return results;
});

/** A required Idempotency-Key documents the 400 sent without it. */
export const idempotencyKeyRequired400 = perOperation(({ pathItem, method, operation, at }) => {
  const key = headerParameter(pathItem, operation, KEY);
  if (!key?.required || documents(operation, 400)) return [];
  return [
    finding(
      [...at, 'responses'],
      `${label(method, at)} requires ${KEY} but documents no 400: add the answer to a request sent without the key (or with one that is empty or too long).`,
    ),
  ];
});

const EXPIRY =
  /\b(expir\w*|ttl|time[- ]to[- ]live|retain\w*|retention|kept|stored for|remembered|forgotten|valid for|purged?)\b|\b\d+\s*(s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?)\b/i;

/** Whether `text` says how long a key is remembered. */
export const statesExpiry = (text: string): boolean => EXPIRY.test(text);

/** An operation that takes Idempotency-Key says how long a key is remembered. */
export const idempotencyKeyExpiry = perOperation(({ pathItem, method, operation, at }) => {
  const key = headerParameter(pathItem, operation, KEY);
  if (!key) return [];
  const texts = [key.description, key.schema.description];
  if (texts.some((t) => typeof t === 'string' && statesExpiry(t))) return [];
  const ttl = [key.value, operation, pathItem].find((n) => n[KEY_TTL] !== undefined);
  if (ttl) return [];
  return [
    finding(
      at,
      `${label(method, at)} takes ${KEY} but does not say how long a key is remembered: state the expiry in the parameter's description (e.g. "kept for 24 hours; a retry after that runs again"), or set \`${KEY_TTL}\` (e.g. "PT24H").`,
    ),
  ];
});
