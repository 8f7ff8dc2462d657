/**
 * The RFC 9110 precondition rules, on a path item (`$.paths[*]`). A path is a versioned resource when
 * one of its operations shows it: an `ETag` response header (not a POST's: that one names the
 * resource it created), an `If-Match` parameter, a documented
 * 412 or 428, or `x-versioned: true`; `x-versioned: false` on the path item says it is not.
 */
import { createRulesetFunction, type IFunctionResult } from '@stoplight/spectral-core';
import { VERSIONED } from '../extensions.js';
import {
  documents,
  extension,
  headerParameter,
  isObject,
  isSuccessStatus,
  type Json,
  operationsOf,
  responseHeader,
  responsesOf,
} from '../openapi.js';
import { finding, label, type Path } from './result.js';

const WRITES = new Set(['put', 'patch', 'delete']);

/** Whether the path item is a versioned resource (see the module comment). */
export function isVersioned(pathItem: unknown): boolean {
  const flag = extension(VERSIONED, pathItem);
  if (flag !== undefined) return flag;
  return operationsOf(pathItem).some(
    ({ method, operation }) =>
      extension(VERSIONED, operation) === true ||
      headerParameter(pathItem, operation, 'If-Match') !== undefined ||
      documents(operation, 412) ||
      documents(operation, 428) ||
      // A POST's ETag (on its 201) is the created resource's, at its Location: not this path's.
      (method !== 'post' && responsesOf(operation).some(([, r]) => responseHeader(r, 'ETag'))),
  );
}

type Check = (o: { pathItem: Json; method: string; operation: Json; at: Path }) => IFunctionResult[];

/** Runs `check` on the GETs of a versioned path, and on the GETs elsewhere that `also` picks. */
function onReads(also: (operation: Json) => boolean, check: Check) {
  return createRulesetFunction<unknown, null>(
    { input: null, options: null },
    (pathItem, _options, context) => {
      const versioned = isVersioned(pathItem);
      return operationsOf(pathItem)
        .filter(({ method, operation }) => method === 'get' && (versioned || also(operation)))
        .flatMap(({ method, operation }) =>
          check({ pathItem: pathItem as Json, method, operation, at: [...context.path, method] }),
        );
    },
  );
}

const onVersionedWrites = (check: Check) =>
  createRulesetFunction<unknown, null>({ input: null, options: null }, (pathItem, _options, context) => {
    if (!isVersioned(pathItem)) return [];
    return operationsOf(pathItem)
      .filter(({ method }) => WRITES.has(method))
      .flatMap(({ method, operation }) =>
        check({ pathItem: pathItem as Json, method, operation, at: [...context.path, method] }),
      );
  });

const VERSION_FIELD = /(version|revision|etag)$/i;

/**
 * Whether the request body carries the version it was read at (a property named `…version`,
 * `…revision` or `…etag`, up to four levels down): a precondition in the body, as GitHub's
 * `custom_pattern_version` is, instead of If-Match.
 */
export function bodyCarriesVersion(operation: Json): boolean {
  const seen = new Set<unknown>();
  const visit = (schema: unknown, depth: number): boolean => {
    if (!isObject(schema) || depth > 4 || seen.has(schema)) return false;
    seen.add(schema);
    const properties = isObject(schema.properties) ? schema.properties : {};
    if (Object.keys(properties).some((name) => VERSION_FIELD.test(name))) return true;
    const next = [
      ...Object.values(properties),
      schema.items,
      ...(['allOf', 'oneOf', 'anyOf'] as const).flatMap((k) => (Array.isArray(schema[k]) ? schema[k] : [])),
    ];
    return next.some((s) => visit(s, depth + 1));
  };
  const body = isObject(operation.requestBody) ? operation.requestBody : {};
  const content = isObject(body.content) ? body.content : {};
  return Object.values(content).some((media) => isObject(media) && visit(media.schema, 0));
}

/** PUT / PATCH / DELETE on a versioned resource declare If-Match (or send the version in the body). */
export const writeIfMatch = onVersionedWrites(({ pathItem, method, operation, at }) =>
  headerParameter(pathItem, operation, 'If-Match') || bodyCarriesVersion(operation)
    ? []
    : [
        finding(
          at,
          `${label(method, at)} changes a versioned resource but declares no If-Match header: add it (in: header, name: If-Match) so that a client can send the ETag it read and a lost update becomes a 412.`,
        ),
      ],
);

/** ... and document 412 Precondition Failed. */
export const write412 = onVersionedWrites(({ method, operation, at }) =>
  documents(operation, 412)
    ? []
    : [
        finding(
          [...at, 'responses'],
          `${label(method, at)} changes a versioned resource but documents no 412: add the answer to an If-Match that no longer matches (another write came first: read again, then retry).`,
        ),
      ],
);

/** A write whose If-Match is required documents 428 Precondition Required. */
export const write428 = onVersionedWrites(({ pathItem, method, operation, at }) => {
  const ifMatch = headerParameter(pathItem, operation, 'If-Match');
  if (!ifMatch?.required || documents(operation, 428)) return [];
  return [
    finding(
      [...at, 'responses'],
      `${label(method, at)} requires If-Match but documents no 428: add the answer to a write sent without it.`,
    ),
  ];
});

/** A GET of a versioned resource, or one that documents 304, declares ETag on its 2xx answers. */
export const readETag = onReads(
  (operation) => documents(operation, 304),
  ({ method, operation, at }) => {
    const missing = responsesOf(operation).filter(
      ([status, r]) => isSuccessStatus(status) && !responseHeader(r, 'ETag'),
    );
    return missing.map(([status]) =>
      finding(
        [...at, 'responses', status],
        `${label(method, at)} answers ${status} for a versioned (or cacheable) resource without declaring the ETag response header: declare it, so that clients can send it back in If-Match and If-None-Match.`,
      ),
    );
  },
);

/** A GET of a versioned resource documents 304 and If-None-Match. */
export const read304 = onReads(
  () => false,
  ({ pathItem, method, operation, at }) => {
    const results: IFunctionResult[] = [];
    if (!documents(operation, 304))
      results.push(
        finding(
          [...at, 'responses'],
          `${label(method, at)} reads a versioned resource but documents no 304: add the answer to an If-None-Match that matches the current ETag.`,
        ),
      );
    if (!headerParameter(pathItem, operation, 'If-None-Match'))
      results.push(
        finding(
          at,
          `${label(method, at)} reads a versioned resource but declares no If-None-Match header: add it (in: header, name: If-None-Match) so that a client can revalidate what it holds.`,
        ),
      );
    return results;
  },
);

/** Whether the write changes the resource's state (a PATCH, or a PUT with a body), not a toggle. */
function modifies(method: string, operation: Json): boolean {
  return method === 'patch' || (method === 'put' && isObject(operation.requestBody));
}

/**
 * A PUT / PATCH / DELETE of a resource that shows no version at all (the common case: an API that
 * never thought of lost updates). DELETE counts only beside a write that changes the resource (a
 * DELETE of something never changed loses nothing); a bodiless PUT is a toggle (star, follow).
 * `x-versioned: false` on the path or the operation says a lost update cannot happen there.
 */
export const writeUnversioned = createRulesetFunction<unknown, null>(
  { input: null, options: null },
  (pathItem, _options, context) => {
    if (extension(VERSIONED, pathItem) === false || isVersioned(pathItem)) return [];
    const writes = operationsOf(pathItem).filter(
      ({ method, operation }) =>
        WRITES.has(method) && extension(VERSIONED, operation) !== false && !bodyCarriesVersion(operation),
    );
    if (!writes.some(({ method, operation }) => modifies(method, operation))) return [];
    return writes
      .filter(({ method, operation }) => method === 'delete' || modifies(method, operation))
      .map(({ method }) => {
        const at = [...context.path, method];
        return finding(
          at,
          `${label(method, at)} changes a resource that shows no version (no ETag, If-Match, 412 or 428), so of two clients that read it and write it back one loses its update silently: add an ETag to its reads and If-Match with 412 / 428 to its writes, or mark the path \`x-versioned: false\` when a lost update cannot happen there.`,
        );
      });
  },
);
