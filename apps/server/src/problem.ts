import { PROBLEM_CONTENT_TYPE, type Problem, problemBody } from '@surety/core';
import { isDatabaseUnavailableError, isInvalidCursorError } from '@surety/db';
import type { StoredResponse } from '@surety/idempotency';
import {
  ApplicationNotFoundError,
  ApplicationUidTakenError,
  EndpointLimitError,
  EndpointNotFoundError,
  InvalidAuthError,
  InvalidEventError,
  InvalidFilterError,
  InvalidHeadersError,
  InvalidInputError,
  WebhookError,
} from '@surety/webhooks';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

/**
 * An error that is a final answer to the client, sent as RFC 9457 problem+json with a stable `code`.
 * Thrown inside an idempotent route with a 4xx status it is stored and replayed like any 4xx.
 */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    readonly detail: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
    /** Inside an idempotent route: whether this answer is the operation's stored outcome (see isFinal). */
    readonly final?: boolean,
  ) {
    super(detail);
    this.name = 'HttpProblem';
  }

  body(instance?: string): string {
    const { status, code, title, detail, extra } = this;
    return problemBody({ status, code, title, detail, extensions: extra }, instance);
  }

  toStoredResponse(instance?: string): StoredResponse {
    return {
      status: this.status,
      headers: { ...this.headers, 'content-type': PROBLEM_CONTENT_TYPE },
      body: this.body(instance),
      ...(this.final === undefined ? {} : { final: this.final }),
    };
  }
}

export const notFound = (what: string) => new HttpProblem(404, 'not_found', 'Not found', `No such ${what}.`);

/** 409: another application of the tenant has the uid (uids are unique per tenant). */
export const applicationUidTaken = (uid: string) =>
  new HttpProblem(409, 'application_uid_taken', 'Uid taken', `Another application has the uid ${uid}.`, {
    uid,
  });

/** A problem from @surety/conditional (412/428/400/409) as an HttpProblem; version conflicts are not final. */
export const fromConditional = (p: Problem) =>
  new HttpProblem(
    p.status,
    p.code,
    p.title,
    p.detail,
    {},
    {},
    p.code === 'version_conflict' ? false : undefined,
  );

export function sendProblem(reply: FastifyReply, problem: HttpProblem, instance: string): FastifyReply {
  return reply
    .code(problem.status)
    .headers(problem.headers)
    .type(PROBLEM_CONTENT_TYPE)
    .send(problem.body(instance));
}

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

function validationProblem(error: FastifyError & { validation: AjvError[]; validationContext?: string }) {
  const where = error.validationContext ?? 'body';
  const errors = error.validation.map((e) => {
    let path = e.instancePath || '/';
    let message = e.message ?? e.keyword;
    if (e.keyword === 'additionalProperties') {
      path = `${e.instancePath}/${String(e.params.additionalProperty)}`;
      message = 'unknown field';
    } else if (e.keyword === 'required') {
      path = `${e.instancePath}/${String(e.params.missingProperty)}`;
      message = 'is required';
    }
    return { in: where, path, message };
  });
  const detail = errors.map((e) => `${e.in}${e.path === '/' ? '' : e.path}: ${e.message}`).join('; ');
  // A date-time RFC 3339 allows but PostgreSQL cannot be sent (year 0000, past 9999 in UTC) has
  // a code of its own, when that is the only thing wrong.
  const outOfRange =
    error.validation.length > 0 && error.validation.every((e) => e.params?.outOfRange === true);
  return outOfRange
    ? new HttpProblem(400, 'date_out_of_range', 'Date out of range', detail, { errors })
    : new HttpProblem(400, 'validation_failed', 'Invalid request', detail, { errors });
}

const invalidCursor = () =>
  new HttpProblem(400, 'invalid_cursor', 'Invalid cursor', 'The cursor is not one this API returned.');

/** Maps Fastify's own errors (parsing, limits, validation) to problems with stable codes. */
export function toProblem(error: FastifyError): HttpProblem {
  if (error instanceof HttpProblem) return error;
  if ((error as { validation?: unknown }).validation) {
    return validationProblem(error as FastifyError & { validation: AjvError[] });
  }
  if (error instanceof EndpointNotFoundError) return notFound('webhook endpoint');
  if (error instanceof ApplicationNotFoundError) {
    // Named in a body (an endpoint's applicationId, an event's application): the request is
    // wrong, not its URL. Named by the path: 404 like any resource.
    if (!error.field) return notFound('application');
    return new HttpProblem(
      422,
      'unknown_application',
      'Unknown application',
      `${error.field}: no application of this tenant has this id or uid.`,
      { errors: [{ in: 'body', path: `/${error.field}`, message: 'names no application of this tenant' }] },
    );
  }
  if (error instanceof ApplicationUidTakenError) return applicationUidTaken(error.uid);
  if (isInvalidCursorError(error)) return invalidCursor();
  if (error instanceof InvalidInputError) {
    // The service checks its input before the library does; this is the library's own guard.
    return new HttpProblem(400, 'validation_failed', 'Invalid request', error.message, {
      errors: error.errors,
    });
  }
  if (error instanceof EndpointLimitError) {
    return new HttpProblem(
      409,
      'endpoint_limit_reached',
      'Endpoint limit reached',
      `This tenant already has ${error.limit} webhook endpoints, the most allowed; delete one first.`,
      { limit: error.limit },
    );
  }
  if (error instanceof InvalidHeadersError) {
    return new HttpProblem(422, 'invalid_webhook_headers', 'Invalid webhook headers', error.message, {
      errors: error.errors.map((e) => ({ in: 'body', ...e })),
    });
  }
  if (error instanceof InvalidAuthError) {
    return new HttpProblem(422, 'invalid_webhook_auth', 'Invalid receiver authentication', error.message, {
      errors: error.errors.map((e) => ({ in: 'body', ...e })),
    });
  }
  if (error instanceof InvalidFilterError) {
    return new HttpProblem(422, 'invalid_webhook_filter', 'Invalid webhook filter', error.message, {
      errors: error.errors.map((e) => ({ in: 'body', ...e })),
    });
  }
  if (error instanceof InvalidEventError) {
    return new HttpProblem(422, 'invalid_event', 'Invalid event', error.message, { errors: error.errors });
  }
  if (error instanceof WebhookError) {
    if (error.code === 'SURETY_INVALID_URL') {
      return new HttpProblem(400, 'invalid_webhook_url', 'Invalid webhook URL', error.message, {
        errors: [{ in: 'body', path: '/url', message: error.message }],
      });
    }
    if (error.code === 'SURETY_INVALID_CURSOR') return invalidCursor();
  }
  if (isDatabaseUnavailableError(error)) {
    return new HttpProblem(
      503,
      'database_unavailable',
      'Service unavailable',
      'The database cannot be reached; nothing was changed. Retry shortly.',
      {},
      { 'retry-after': '1' },
    );
  }
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return new HttpProblem(400, 'invalid_url', 'Invalid URL', 'The request path is not valid.');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new HttpProblem(414, 'uri_too_long', 'URI too long', 'A path parameter is too long.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new HttpProblem(400, 'invalid_json', 'Invalid JSON', 'The request body is not valid JSON.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new HttpProblem(400, 'invalid_json', 'Invalid JSON', 'The request body is empty.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new HttpProblem(413, 'body_too_large', 'Body too large', error.message);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new HttpProblem(
        error.statusCode === 415 ? 415 : 400,
        error.statusCode === 415 ? 'unsupported_media_type' : 'invalid_content_length',
        error.statusCode === 415 ? 'Unsupported media type' : 'Invalid Content-Length',
        error.statusCode === 415 ? 'Send the body as application/json.' : error.message,
      );
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    const code = status === 404 ? 'not_found' : status === 405 ? 'method_not_allowed' : 'bad_request';
    return new HttpProblem(status, code, 'Bad request', error.message);
  }
  return new HttpProblem(
    500,
    'internal_error',
    'Internal server error',
    'The server failed; nothing was committed.',
  );
}

/** The service's error handler: every error leaves as problem+json. */
export function errorHandler(
  this: unknown,
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const problem = toProblem(error);
  if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
  return sendProblem(reply, problem, request.url);
}
