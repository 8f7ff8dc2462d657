/**
 * What the API document says about one route, derived from what the route declares: its `config`
 * (`idempotency`, `precondition`, `sends`, `problems`) gives its header parameters, the headers
 * of its answers and its problem codes; its schema gives the rest. `describeRoute` refuses a route
 * that leaves something out (no operationId, description or tag, no 2xx, an unsafe method that does
 * not say how it treats retries, a code not in problem-codes.ts), so a new route cannot make the
 * document incomplete. `applyRouteDocs` writes the result into the generated document.
 */
import { STATUS_CODES } from 'node:http';
import type { RouteOptions } from 'fastify';
import { isProblemCode, PROBLEM_CODES, type ProblemCodeName } from './problem-codes.js';
import type { PreconditionNeed } from './route-config.js';

export interface DocOptions {
  /** How long a completed Idempotency-Key is remembered (stated in its description). */
  idempotencyTtlMs: number;
  /** The tags the document declares; a route's tag must be one of them. */
  tags: readonly string[];
}

type Json = Record<string, unknown>;

/** One operation's generated parts, keyed by `METHOD /openapi/{path}`. */
export interface RouteDoc {
  parameters: Json[];
  /** Headers of each 2xx answer the route's schema lists. */
  successHeaders: Json;
  /** Every non-2xx answer: 304 and the problems. */
  responses: Record<string, Json>;
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);
const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** A duration in the largest whole unit: "24 hours", "90 seconds". */
export function spell(ms: number): string {
  for (const [unit, size] of [
    ['day', 86_400_000],
    ['hour', 3_600_000],
    ['minute', 60_000],
    ['second', 1000],
  ] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size} ${unit}${ms === size ? '' : 's'}`;
  }
  return `${ms} milliseconds`;
}

function idempotencyKeyParameter(required: boolean, ttlMs: number): Json {
  return {
    name: 'Idempotency-Key',
    in: 'header',
    required,
    description:
      `${required ? 'Required' : 'Optional (without it a retry may repeat the operation)'}: a unique ` +
      'value for this operation, 1-255 visible ASCII characters (a UUID v4), sent unchanged on every ' +
      'retry, bare or as an RFC 8941 string (`"k"` and `k` are the same key). The key and its answer ' +
      `are kept for ${spell(ttlMs)} (${ttlMs / 1000} seconds) after the request completes: a retry within ` +
      'that time gets the stored answer again, with `Idempotent-Replayed: true`, and the operation is not ' +
      'repeated; after it the key is a new operation. 409 `idempotency_key_in_use`: a request with this ' +
      'key is still running (retry after Retry-After). 422 `idempotency_key_reused`: the key was used with ' +
      'another method, path or body. 400 `idempotency_key_invalid`' +
      (required ? ', or `idempotency_key_missing` without the header' : '') +
      '. Keys are per tenant.',
    schema: { type: 'string', minLength: 1, maxLength: 257, pattern: '^[\\x21-\\x7e]+$' },
  };
}

const IF_MATCH_TEXT =
  'The ETag of the version you read (from a GET or your last write). 412 `precondition_failed` when ' +
  'the resource changed since: GET it again, re-apply the change, retry with the new ETag. A weak tag ' +
  '(W/…) never matches.';

function preconditionParameters(need: PreconditionNeed): Json[] {
  const tag = { type: 'string', maxLength: 1024 };
  switch (need) {
    case 'read':
      return [
        {
          name: 'If-None-Match',
          in: 'header',
          required: false,
          description: 'ETags you hold: 304 Not Modified, with no body, when one is the current ETag.',
          schema: tag,
        },
      ];
    case 'required':
      return [
        {
          name: 'If-Match',
          in: 'header',
          required: true,
          description: `Required: 428 \`precondition_required\` without it. ${IF_MATCH_TEXT}`,
          schema: tag,
        },
      ];
    case 'optional':
      return [
        {
          name: 'If-Match',
          in: 'header',
          required: false,
          description: `Honoured when sent; without it the write is unconditional. ${IF_MATCH_TEXT}`,
          schema: tag,
        },
      ];
    case 'to-replace':
      return [
        {
          name: 'If-Match',
          in: 'header',
          required: false,
          description:
            'Required to replace an existing resource (428 `precondition_required` without it); ' +
            `not needed to create one. ${IF_MATCH_TEXT}`,
          schema: tag,
        },
        {
          name: 'If-None-Match',
          in: 'header',
          required: false,
          description: '`*`: create only; 412 `precondition_failed` when the resource exists.',
          schema: tag,
        },
      ];
  }
}

/** The problem codes a route can answer with: implied by what it declares and takes, and its own. */
export function problemCodes(route: RouteOptions): ProblemCodeName[] {
  const { config = {}, schema = {} } = route;
  const methods = ([] as string[]).concat(route.method);
  const codes = new Set<ProblemCodeName>(['invalid_character', 'invalid_url', 'unauthorized']);
  codes.add('database_unavailable');
  if (schema.params || schema.querystring || schema.body) codes.add('validation_failed');
  if (schema.params) codes.add('not_found');
  if (methods.some((m) => WITH_BODY.has(m))) {
    for (const c of ['invalid_json', 'invalid_content_length', 'body_too_large'] as const) codes.add(c);
    codes.add('unsupported_media_type');
  }
  const query = schema.querystring as { properties?: Json } | undefined;
  if (query?.properties?.cursor) codes.add('invalid_cursor');
  if (JSON.stringify([schema.querystring, schema.body]).includes('"date-time"')) {
    codes.add('date_out_of_range');
  }
  const { idempotency, precondition } = config;
  if (idempotency) {
    const required = typeof idempotency === 'object' ? idempotency.required !== false : true;
    if (required) codes.add('idempotency_key_missing');
    for (const c of ['idempotency_key_invalid', 'idempotency_key_in_use', 'idempotency_key_reused'] as const)
      codes.add(c);
    codes.add('idempotency_store_unavailable');
  }
  if (precondition) codes.add('malformed_precondition');
  if (precondition && precondition !== 'read') codes.add('precondition_failed');
  if (precondition === 'required' || precondition === 'to-replace') codes.add('precondition_required');
  if (precondition === 'to-replace') codes.add('version_conflict');
  // Portal tokens (auth.ts): refused where the route does not take them, else scoped to a session.
  if (config.portal) {
    codes.add('portal_session_expired');
    codes.add('portal_session_revoked');
    if (config.portal === 'write') codes.add('portal_read_only');
  } else codes.add('portal_forbidden');
  for (const c of config.problems ?? []) if (isProblemCode(c)) codes.add(c);
  return [...codes];
}

function problemResponses(codes: ProblemCodeName[]): Record<string, Json> {
  const byStatus = new Map<number, ProblemCodeName[]>();
  for (const code of codes) {
    const { status } = PROBLEM_CODES[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, Json> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    list.sort();
    const headers: Json = {};
    if (status === 401) headers['WWW-Authenticate'] = header('WWW-Authenticate');
    if (status === 503 || status === 429 || list.includes('idempotency_key_in_use'))
      headers['Retry-After'] = header('Retry-After');
    out[String(status)] = {
      description: `${STATUS_CODES[status]}: ${list.map((c) => `\`${c}\`: ${PROBLEM_CODES[c].meaning}`).join('; ')}.`,
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      content: {
        'application/problem+json': {
          schema: {
            allOf: [
              { $ref: '#/components/schemas/Problem' },
              { type: 'object', properties: { code: { type: 'string', enum: list } } },
            ],
          },
        },
      },
    };
  }
  return out;
}

function refuse(route: RouteOptions, what: string): never {
  throw new Error(
    `${String(route.method)} ${route.url}: ${what}. Every documented route declares what /openapi.json ` +
      'says about it (see apps/server/src/openapi-operation.ts and docs/contracts.md).',
  );
}

/**
 * The document's parts for one route; undefined for a route the document leaves out (hidden,
 * public, HEAD). Throws, naming the route and what is missing, when the route leaves something out.
 */
export function describeRoute(route: RouteOptions, options: DocOptions): RouteDoc | undefined {
  const { config = {}, schema } = route;
  const methods = ([] as string[]).concat(route.method);
  if (config.public || schema?.hide || methods.every((m) => m === 'HEAD')) return undefined;
  if (!schema) return refuse(route, 'no schema');
  const { operationId, summary, description, tags } = schema as Json;
  if (typeof operationId !== 'string' || !/^[a-z][A-Za-z0-9]*$/.test(operationId)) {
    refuse(route, 'no schema.operationId (camelCase, unique: createPayment)');
  }
  if (typeof summary !== 'string' || summary === '') refuse(route, 'no schema.summary');
  if (typeof description !== 'string' || description === '') refuse(route, 'no schema.description');
  if (!Array.isArray(tags) || tags.length === 0 || !tags.every((t) => options.tags.includes(t))) {
    refuse(route, `schema.tags must name one of ${options.tags.join(', ')} (add a new tag in openapi.ts)`);
  }
  const statuses = Object.keys((schema.response as Json | undefined) ?? {});
  const success = statuses.filter((s) => /^2\d\d$/.test(s));
  if (success.length === 0) refuse(route, 'no 2xx in schema.response');
  if (methods.some((m) => UNSAFE.has(m)) && config.idempotency === undefined) {
    refuse(route, 'an unsafe method without config.idempotency (true, { required: false }, or false)');
  }
  for (const code of config.problems ?? []) {
    if (!isProblemCode(code)) refuse(route, `config.problems names ${code}, which problem-codes.ts lacks`);
  }
  const sends = config.sends ?? [];
  if (sends.includes('location') && !success.includes('201')) refuse(route, 'sends location without a 201');

  const parameters: Json[] = [];
  if (config.idempotency) {
    const required = typeof config.idempotency === 'object' ? config.idempotency.required !== false : true;
    parameters.push(idempotencyKeyParameter(required, options.idempotencyTtlMs));
  }
  if (config.precondition) parameters.push(...preconditionParameters(config.precondition));

  const validators: Json = {};
  if (sends.includes('etag')) validators.ETag = header('ETag');
  if (sends.includes('last-modified')) validators['Last-Modified'] = header('Last-Modified');
  const successHeaders: Json = {};
  for (const status of success) {
    const headers: Json = { ...validators };
    if (sends.includes('location') && status === '201') headers.Location = header('Location');
    if (config.idempotency) headers['Idempotent-Replayed'] = header('Idempotent-Replayed');
    successHeaders[status] = headers;
  }
  const responses = problemResponses(problemCodes(route));
  if (config.precondition === 'read') {
    responses['304'] = {
      description: 'Not Modified: If-None-Match named the current ETag; no body.',
      headers: validators,
    };
  }
  return { parameters, successHeaders, responses };
}

/** The key of an operation: `GET /v1/orders/{id}` for the route `/v1/orders/:id`. */
export const operationKey = (method: string, url: string) =>
  `${method.toUpperCase()} ${url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`;

/**
 * Writes each route's parts into the generated document: its header parameters, the headers and
 * descriptions of its 2xx answers, and every other answer. Throws for an operation no route described.
 */
export function applyRouteDocs(document: Json, docs: ReadonlyMap<string, RouteDoc>): Json {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Json>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const doc = docs.get(operationKey(method, path));
      if (!doc)
        throw new Error(`${method.toUpperCase()} ${path} is in the document but no route described it`);
      operation.parameters = [...((operation.parameters as Json[]) ?? []), ...doc.parameters];
      const responses: Record<string, Json> = {};
      for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, Json>)) {
        if (!/^2\d\d$/.test(status)) continue;
        const headers = (doc.successHeaders[status] ?? {}) as Json;
        const plain = response.description === 'Default Response' || !response.description;
        const next: Json = {
          ...response,
          description: plain ? String(STATUS_CODES[Number(status)]) : response.description,
          ...(Object.keys(headers).length > 0 ? { headers } : {}),
        };
        if (status === '204') delete next.content;
        responses[status] = next;
      }
      operation.responses = { ...responses, ...doc.responses };
    }
  }
  return document;
}
