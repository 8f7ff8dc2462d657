import type { Context } from 'hono';
import { type CurrentState, evaluatePreconditions } from './evaluate.js';
import { type CheckOptions, preconditionResponse, type Validators, validatorHeaders } from './response.js';

/**
 * Evaluates the request's preconditions against `current`. Returns undefined when the handler may
 * proceed, otherwise the 304, 400, 412 or 428 Response to return.
 * @example
 * app.patch('/v1/orders/:id', async (c) => {
 *   const row = await load(c.req.param('id'));
 *   const stop = checkPreconditions(c, { exists: true, etag: versionETag(row.version) }, { require: true });
 *   if (stop) return stop;
 *   // … conditional update; setValidators(c, { etag: versionETag(newVersion) })
 * });
 */
export function checkPreconditions(
  c: Context,
  current: CurrentState,
  options: CheckOptions = {},
): Response | undefined {
  const result = evaluatePreconditions({
    ...options,
    method: c.req.method,
    headers: c.req.raw.headers,
    current,
  });
  const response = preconditionResponse(result, current, new URL(c.req.url).pathname);
  if (!response) return undefined;
  return new Response(response.body === '' ? null : response.body, {
    status: response.status,
    headers: response.headers,
  });
}

/**
 * Sets `ETag` and `Last-Modified` on the response being built (those given).
 * @example setValidators(c, { etag: versionETag(row.version) }); return c.json(row);
 */
export function setValidators(c: Context, validators: Validators): void {
  for (const [name, value] of Object.entries(validatorHeaders(validators))) c.header(name, value);
}
