/**
 * Reading an OpenAPI 3.x document the way the rules need it: operations of a path item, their header
 * parameters (path-level ones included, names compared case-insensitively), responses and their
 * headers and media types. Spectral hands the functions the resolved document (internal `$ref`s
 * inlined); anything still a `$ref` here was not resolved (a remote one, not followed) and reads as
 * absent.
 */

export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type Method = (typeof METHODS)[number];

export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export interface Operation {
  method: Method;
  operation: Json;
}

/** The operations of a path item, in the order of `METHODS`. */
export function operationsOf(pathItem: unknown): Operation[] {
  if (!isObject(pathItem)) return [];
  return METHODS.filter((m) => isObject(pathItem[m])).map((method) => ({
    method,
    operation: pathItem[method] as Json,
  }));
}

interface Parameter {
  name: string;
  in: string;
  required: boolean;
  description: string;
  schema: Json;
  value: Json;
}

function parametersOf(list: unknown): Parameter[] {
  if (!Array.isArray(list)) return [];
  return list.filter(isObject).flatMap((p) =>
    typeof p.name === 'string' && typeof p.in === 'string'
      ? [
          {
            name: p.name,
            in: p.in,
            required: p.required === true,
            description: typeof p.description === 'string' ? p.description : '',
            schema: isObject(p.schema) ? p.schema : {},
            value: p,
          },
        ]
      : [],
  );
}

/**
 * The header parameter `name` of an operation: its own, or the path item's (an operation's own
 * parameter overrides the path item's with the same name and location).
 */
export function headerParameter(pathItem: unknown, operation: Json, name: string): Parameter | undefined {
  const wanted = name.toLowerCase();
  const match = (p: Parameter) => p.in === 'header' && p.name.toLowerCase() === wanted;
  return (
    parametersOf(operation.parameters).find(match) ??
    parametersOf(isObject(pathItem) ? pathItem.parameters : undefined).find(match)
  );
}

/** The operation's responses as [status, response] pairs (`default` and `4XX` ranges included). */
export function responsesOf(operation: Json): [string, Json][] {
  const responses = operation.responses;
  if (!isObject(responses)) return [];
  return Object.entries(responses).flatMap(([status, r]) =>
    isObject(r) ? [[status, r] as [string, Json]] : [],
  );
}

/** Whether `status` (e.g. 409) is documented, exactly or through its range (`4XX`). */
export function documents(operation: Json, status: number): boolean {
  const keys = responsesOf(operation).map(([s]) => s.toUpperCase());
  return keys.includes(String(status)) || keys.includes(`${String(status)[0]}XX`);
}

/** Whether a response declares the header `name` (compared case-insensitively). */
export function responseHeader(response: Json, name: string): boolean {
  if (!isObject(response.headers)) return false;
  const wanted = name.toLowerCase();
  return Object.keys(response.headers).some((h) => h.toLowerCase() === wanted);
}

/** The media types a response's `content` declares. */
export function mediaTypes(response: Json): string[] {
  return isObject(response.content) ? Object.keys(response.content) : [];
}

/** A status key that is an error: `4xx`, `5xx`, `4XX`, `5XX`. (`default` is judged by its content.) */
export const isErrorStatus = (status: string): boolean => /^[45](\d\d|XX)$/i.test(status);

/** A 2xx status key. */
export const isSuccessStatus = (status: string): boolean => /^2(\d\d|XX)$/i.test(status);

/** Reads a boolean `x-` extension from the first of `nodes` that sets it. */
export function extension(name: string, ...nodes: unknown[]): boolean | undefined {
  for (const node of nodes) {
    if (isObject(node) && typeof node[name] === 'boolean') return node[name] as boolean;
  }
  return undefined;
}
