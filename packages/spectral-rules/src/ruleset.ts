/**
 * The reliability ruleset: Spectral rules that hold an OpenAPI 3.x document to the checklist
 * (docs/contracts.md has one section per rule, at the anchor named after it). This module imports
 * only Spectral's own packages and the functions beside it, so that Spectral's CLI can bundle it
 * (`extends: ["@surety/spectral-rules"]`).
 */
import type { RulesetDefinition } from '@stoplight/spectral-core';
import { oas3 } from '@stoplight/spectral-formats';
import {
  read304,
  readETag,
  write412,
  write428,
  writeIfMatch,
  writeUnversioned,
} from './functions/conditional.js';
import {
  idempotencyConflicts,
  idempotencyKeyExpiry,
  idempotencyKeyRequired400,
  postIdempotencyKey,
} from './functions/idempotency.js';
import { problemJson, retryAfter } from './functions/responses.js';
import { webhookSignature, webhookTimestamp } from './functions/webhooks.js';

/** Where each rule is explained: `${DOCS}#${ruleName}`. */
export const DOCS = 'https://github.com/surety-dev/surety/blob/main/docs/contracts.md';

const PATHS = '$.paths[*]';
// OpenAPI 3.1 `webhooks`, the `x-webhooks` of 3.0 documents (GitHub's, Redocly's), and callbacks.
const WEBHOOKS = ['$.webhooks[*]', "$['x-webhooks'][*]", '$.paths[*][*].callbacks[*][*]'];

type Severity = 'error' | 'warn';
type Fn = typeof postIdempotencyKey;

const rule = (name: string, description: string, severity: Severity, given: string | string[], fn: Fn) =>
  [
    name,
    {
      description,
      message: '{{error}}',
      severity,
      given,
      documentationUrl: `${DOCS}#${name}`,
      // biome-ignore lint/suspicious/noThenProperty: Spectral's rule format names its action `then`.
      then: { function: fn },
    },
  ] as const;

/** The rules: name → [description, severity]. */
const RULES = [
  rule(
    'surety-post-idempotency-key',
    'Every unsafe POST declares the Idempotency-Key header, or is marked `x-idempotent: true`.',
    'error',
    PATHS,
    postIdempotencyKey,
  ),
  rule(
    'surety-idempotency-conflicts',
    'An operation that takes Idempotency-Key documents 409 (in flight) and 422 (key reused with another body).',
    'error',
    PATHS,
    idempotencyConflicts,
  ),
  rule(
    'surety-idempotency-key-required-400',
    'An operation that requires Idempotency-Key documents the 400 answered without it.',
    'error',
    PATHS,
    idempotencyKeyRequired400,
  ),
  rule(
    'surety-idempotency-key-expiry',
    'An operation that takes Idempotency-Key says how long a key is remembered.',
    'error',
    PATHS,
    idempotencyKeyExpiry,
  ),
  rule(
    'surety-write-if-match',
    'PUT, PATCH and DELETE on a versioned resource declare the If-Match header.',
    'error',
    PATHS,
    writeIfMatch,
  ),
  rule(
    'surety-write-412',
    'PUT, PATCH and DELETE on a versioned resource document 412 Precondition Failed.',
    'error',
    PATHS,
    write412,
  ),
  rule(
    'surety-write-428',
    'A write whose If-Match is required documents 428 Precondition Required.',
    'error',
    PATHS,
    write428,
  ),
  rule(
    'surety-write-unversioned',
    'PUT, PATCH and DELETE of a resource that shows no version at all (no ETag, If-Match, 412 or 428).',
    'warn',
    PATHS,
    writeUnversioned,
  ),
  rule(
    'surety-read-etag',
    'A GET of a versioned resource, or one that answers 304, declares the ETag response header.',
    'warn',
    PATHS,
    readETag,
  ),
  rule(
    'surety-read-304',
    'A GET of a versioned resource documents 304 Not Modified and the If-None-Match header.',
    'warn',
    PATHS,
    read304,
  ),
  rule(
    'surety-retry-after',
    '429 and 503 answers declare the Retry-After header.',
    'warn',
    PATHS,
    retryAfter,
  ),
  rule(
    'surety-problem-json',
    'Error answers with a body are application/problem+json (RFC 9457).',
    'warn',
    PATHS,
    problemJson,
  ),
  rule(
    'surety-webhook-signature',
    'Every webhook and callback declares the signature header a receiver verifies.',
    'error',
    WEBHOOKS,
    webhookSignature,
  ),
  rule(
    'surety-webhook-timestamp',
    'A signed webhook also sends a signed timestamp, so that a replay can be refused.',
    'warn',
    WEBHOOKS,
    webhookTimestamp,
  ),
];

/** The names of the rules, in the order of docs/contracts.md. */
export const RULE_NAMES: readonly string[] = RULES.map(([name]) => name);

/**
 * The ruleset, for `new Spectral().setRuleset(ruleset)` or a JavaScript ruleset's `extends`.
 * Every rule applies to OpenAPI 3.0, 3.1 and 3.2 documents.
 */
export const ruleset: RulesetDefinition = {
  documentationUrl: DOCS,
  formats: [oas3],
  rules: Object.fromEntries(RULES),
};
