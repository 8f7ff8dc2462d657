import type { Request, Response } from 'express';
import { type CurrentState, evaluatePreconditions } from './evaluate.js';
import { type CheckOptions, preconditionResponse, type Validators, validatorHeaders } from './response.js';

/**
 * Evaluates the request's preconditions against `current`. Returns true when the handler may proceed;
 * otherwise it has sent the 304, 400, 412 or 428 and returns false.
 * @example
 * app.patch('/v1/orders/:id', async (req, res) => {
 *   const row = await load(req.params.id);
 *   if (!checkPreconditions(req, res, { exists: true, etag: versionETag(row.version) }, { require: true })) return;
 *   // … conditional update; setValidators(res, { etag: versionETag(newVersion) })
 * });
 */
export function checkPreconditions(
  req: Request,
  res: Response,
  current: CurrentState,
  options: CheckOptions = {},
): boolean {
  const result = evaluatePreconditions({ ...options, method: req.method, headers: req.headers, current });
  const response = preconditionResponse(result, current, req.originalUrl.split('?')[0]);
  if (!response) return true;
  res.status(response.status).set(response.headers);
  res.end(response.body === '' ? undefined : response.body);
  return false;
}

/**
 * Sets `ETag` and `Last-Modified` on the response (those given).
 * @example setValidators(res, { etag: versionETag(row.version) }).json(row);
 */
export function setValidators(res: Response, validators: Validators): Response {
  return res.set(validatorHeaders(validators));
}
