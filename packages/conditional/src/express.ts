import type { Request, Response } from 'express';
import { evaluatePreconditions } from './evaluate.js';
import {
  type CheckInput,
  type ProceedResult,
  preconditionResponse,
  type StopResult,
  type Validators,
  validatorHeaders,
} from './response.js';

/** The result of the Express {@link checkPreconditions}, tagged `kind` (`proceed` or `stop`; `proceed` says the same). */
export type ExpressPreconditionCheck =
  | { kind: 'proceed'; proceed: true; result: ProceedResult }
  /** The 304, 400, 412 or 428 has been sent. */
  | { kind: 'stop'; proceed: false; result: StopResult };

/**
 * Evaluates the request's preconditions against `current`. When the request may not proceed, the 304,
 * 400, 412 or 428 has been sent (with `res.end`, so `@surety/idempotency` captures it like any response).
 * @example
 * app.patch('/v1/orders/:id', async (req, res) => {
 *   const row = await load(req.params.id);
 *   const check = checkPreconditions(req, res, { current: { exists: true, etag: versionETag(row.version) }, require: true });
 *   if (!check.proceed) return;
 *   // … versioned update; 0 rows → staleWriteProblem(check.result.ifMatch)
 * });
 */
export function checkPreconditions(req: Request, res: Response, input: CheckInput): ExpressPreconditionCheck {
  const { current, ...rest } = input;
  const result = evaluatePreconditions({ ...rest, method: req.method, headers: req.headers, current });
  if (result.kind === 'proceed') return { kind: 'proceed', proceed: true, result };
  const response = preconditionResponse(result, { current, instance: req.originalUrl.split('?')[0] })!;
  res.status(response.status).set(response.headers);
  res.end(response.body === '' ? undefined : response.body);
  return { kind: 'stop', proceed: false, result };
}

/**
 * Sets `ETag` and `Last-Modified` on the response (those given).
 * @example setValidators(res, { etag: versionETag(row.version) }).json(row);
 */
export function setValidators(res: Response, validators: Validators): Response {
  return res.set(validatorHeaders(validators));
}
