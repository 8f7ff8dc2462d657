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
