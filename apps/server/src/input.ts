// Every string a request brings is checked here, once, before any route, schema or database sees
// it: the body (every key and value at any depth), the query string, the path parameters and the
// headers. One application-wide preValidation hook, registered before any route, so no route (a
// new one, one without a schema, a plugin's) can skip it. The rule itself is @surety/db's
// findUnstorable: what PostgreSQL cannot store (NUL; lone surrogates, which jsonb refuses and a
// text column would silently turn into U+FFFD) is refused with 400 `invalid_character` and the
// place named; nothing is repaired.
import { findUnstorable } from '@surety/db';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpProblem } from './problem.js';

type Part = 'body' | 'querystring' | 'params' | 'headers';

function refuse(where: Part, path: string, message: string): HttpProblem {
  return new HttpProblem(
    400,
    'invalid_character',
    'Invalid character',
    `${where}${path}: ${message}. Nothing was changed.`,
    { errors: [{ in: where, path: path || '/', message }] },
  );
}

/**
 * The query string as sent must be percent-encoded UTF-8: Fastify's parser passes a malformed
 * escape (`%FF`, an encoded surrogate `%ED%A0%80`) through as it is or as U+FFFD, so the route
 * would see something other than what the client meant. The router already refuses the same in a
 * path (`invalid_url`).
 */
function checkRawQuery(url: string): HttpProblem | undefined {
  const q = url.indexOf('?');
  if (q < 0) return undefined;
  try {
    decodeURIComponent(url.slice(q + 1));
    return undefined;
  } catch {
    return new HttpProblem(
      400,
      'invalid_url',
      'Invalid URL',
      'The query string is not percent-encoded UTF-8. Nothing was changed.',
      { errors: [{ in: 'querystring', path: '/', message: 'is not percent-encoded UTF-8' }] },
    );
  }
}

/** The first unstorable string of the request, as a problem, or undefined. */
export function checkRequestStrings(request: FastifyRequest): HttpProblem | undefined {
  const raw = checkRawQuery(request.url);
  if (raw) return raw;
  const parts: [Part, unknown][] = [
    ['params', request.params],
    ['querystring', request.query],
    ['headers', request.headers],
    ['body', request.body],
  ];
  for (const [where, value] of parts) {
    const found = findUnstorable(value);
    if (found) return refuse(where, found.path, found.message);
  }
  return undefined;
}

/** Registers the check on the whole application; call before any route is added. */
export function registerInputCheck(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const problem = checkRequestStrings(request);
    if (problem) throw problem;
  });
}

/**
 * Registers the JSON body parsers (application/json, application/merge-patch+json): the body must
 * be UTF-8 (RFC 8259 §8.1). Fastify's own parser decodes it with replacement, so a byte 0xFF, a
 * broken sequence or a CESU-8 surrogate would reach the route (and the database) as U+FFFD, a
 * character the client never sent. Here such a body is 400 `invalid_json`; the rest is Fastify's
 * parser as it is (`__proto__` and `constructor` keys refused). A BOM is kept, and refused by the
 * parser, as before.
 */
export function registerJsonParsers(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const parser = (
    request: FastifyRequest,
    body: Buffer,
    done: (err: Error | null, body?: unknown) => void,
  ) => {
    let text: string;
    try {
      text = utf8.decode(body);
    } catch {
      done(
        new HttpProblem(
          400,
          'invalid_json',
          'Invalid JSON',
          'The request body is not UTF-8 (RFC 8259 §8.1). Nothing was changed.',
        ),
      );
      return;
    }
    parse(request, text, done);
  };
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parser);
  app.addContentTypeParser('application/merge-patch+json', { parseAs: 'buffer' }, parser);
}
