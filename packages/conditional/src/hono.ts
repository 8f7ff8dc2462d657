import type { Context } from 'hono';
import { evaluatePreconditions } from './evaluate.js';
import {
  type CheckInput,
  type ProceedResult,
  preconditionResponse,
  type StopResult,
  type Validators,
  validatorHeaders,
} from './response.js';

/** The result of the Hono {@link checkPreconditions}, tagged `kind` (`proceed` or `stop`; `proceed` says the same). */
export type HonoPreconditionCheck =
  | { kind: 'proceed'; proceed: true; result: ProceedResult }
  /** Return `response` (304, 400, 412 or 428) from the handler. */
  | { kind: 'stop'; proceed: false; result: StopResult; response: Response };

/**
 * Evaluates the request's preconditions against `current`. When the request may not proceed,
 * `response` is the 304, 400, 412 or 428 to return.
 * @example
 * app.patch('/v1/orders/:id', async (c) => {
 *   const row = await load(c.req.param('id'));
 *   const check = checkPreconditions(c, { current: { exists: true, etag: versionETag(row.version) }, require: true });
 *   if (!check.proceed) return check.response;
 *   // … versioned update; 0 rows → staleWriteProblem(check.result.ifMatch)
 * });
 */
export function checkPreconditions(c: Context, input: CheckInput): HonoPreconditionCheck {
  const { current, ...rest } = input;
  const result = evaluatePreconditions({
    ...rest,
    method: c.req.method,
    headers: c.req.raw.headers,
    current,
  });
  if (result.kind === 'proceed') return { kind: 'proceed', proceed: true, result };
  const response = preconditionResponse(result, { current, instance: new URL(c.req.url).pathname })!;
  return {
    kind: 'stop',
    proceed: false,
    result,
    response: new Response(response.body === '' ? null : response.body, {
      status: response.status,
      headers: response.headers,
    }),
  };
}

/**
 * Sets `ETag` and `Last-Modified` on the response being built (those given).
 * @example setValidators(c, { etag: versionETag(row.version) }); return c.json(row);
 */
export function setValidators(c: Context, validators: Validators): void {
  for (const [name, value] of Object.entries(validatorHeaders(validators))) c.header(name, value);
}
