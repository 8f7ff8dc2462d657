import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { PROBLEM_CONTENT_TYPE, type Problem, problemBody } from '@surety/core';
import type { FastifyInstance } from 'fastify';

/** What Node's HTTP parser refuses before any route runs, as problem+json. */
const PROBLEMS: Record<string, Problem> = {
  // Node counts the request line with the headers against maxHeaderSize (16 KiB): a long URL too.
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: 'headers_too_large',
    title: 'Request header fields too large',
    detail: 'The request line and headers together exceed 16 KiB.',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    code: 'request_timeout',
    title: 'Request timeout',
    detail: 'The request was not received in time.',
  },
};
const MALFORMED: Problem = {
  status: 400,
  code: 'bad_request',
  title: 'Bad request',
  detail: 'The request is not valid HTTP/1.1.',
};

/**
 * Fastify's `clientErrorHandler`: Node answers a head it cannot parse (431 for an oversized one, 408
 * for one that came too slowly, 400 otherwise) before Fastify builds a request, so neither routes nor
 * the error handler see it. Fastify's default writes its own JSON; this writes problem+json with a
 * stable code, as every other answer of the service, then closes the connection (the parser cannot
 * go on after such an error).
 */
export function clientErrorHandler(
  this: FastifyInstance,
  error: Error & { code?: string },
  socket: Socket,
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const problem = PROBLEMS[error.code ?? ''] ?? MALFORMED;
  this.log.debug({ err: error }, `client error ${problem.code}`);
  if (socket.writable) {
    const body = problemBody(problem);
    socket.write(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
