import type { FastifyReply, FastifyRequest } from 'fastify';
import { evaluatePreconditions } from './evaluate.js';
import {
  type CheckInput,
  type ProceedResult,
  preconditionResponse,
  type StopResult,
  type Validators,
  validatorHeaders,
} from './response.js';

/** The result of the Fastify {@link checkPreconditions}, tagged `kind` (`proceed` or `stop`; `proceed` says the same). */
export type FastifyPreconditionCheck =
  | { kind: 'proceed'; proceed: true; result: ProceedResult }
  | {
      kind: 'stop';
      proceed: false;
      result: StopResult;
      /** Return this from the handler: status and headers are already set on the reply. */
      payload: string;
    };

/**
 * Evaluates the request's preconditions against `input.current`. When the request may not proceed, the reply's
 * status (304, 400, 412, 428) and headers are set and `payload` is what the handler returns. It does not
 * call `reply.send()`, so it works inside `@surety/idempotency` routes, which must return their payload.
 * @example
 * app.patch('/v1/orders/:id', async (request, reply) => {
 *   const row = await load(request.params.id);
 *   const check = checkPreconditions(request, reply, {
 *     current: { exists: true, etag: versionETag(row.version) },
 *     require: true,
 *   });
 *   if (!check.proceed) return check.payload;
 *   // … conditional update; setValidators(reply, { etag: versionETag(newVersion) })
 * });
 */
export function checkPreconditions(
  request: FastifyRequest,
  reply: FastifyReply,
  input: CheckInput,
): FastifyPreconditionCheck {
  const { current, ...rest } = input;
  const result = evaluatePreconditions({
    ...rest,
    method: request.method,
    headers: request.headers,
    current,
  });
  if (result.kind === 'proceed') return { kind: 'proceed', proceed: true, result };
  const response = preconditionResponse(result, { current, instance: request.url.split('?')[0] })!;
  reply.code(response.status).headers(response.headers);
  return { kind: 'stop', proceed: false, result, payload: response.body };
}

/**
 * Sets `ETag` and `Last-Modified` on the reply (those given).
 * @example setValidators(reply, { etag: versionETag(row.version), lastModified: row.updated_at });
 */
export function setValidators(reply: FastifyReply, validators: Validators): FastifyReply {
  return reply.headers(validatorHeaders(validators));
}
