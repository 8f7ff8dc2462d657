import type { Tx } from '@surety/db';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Idempotency, StoredResponse } from './engine.js';
import { fingerprint } from './fingerprint.js';
import {
  describingHeaders,
  engineErrorProblem,
  isProblem,
  outcomeResponse,
  PROBLEM_CONTENT_TYPE,
  type Problem,
  problemBody,
  readKey,
} from './http.js';

declare global {
  namespace Express {
    interface Request {
      /** The transaction the idempotency record commits in (set by `idempotency()`). */
      tx?: Tx;
      idempotencyKey?: string | undefined;
    }
  }
}

export interface ExpressIdempotencyOptions {
  engine: Idempotency;
  /** @default () => "" */
  tenant?: (req: Request) => string;
  /** @default true */
  required?: boolean;
}

function send(res: Response, response: StoredResponse | Problem, instance: string): void {
  if (isProblem(response)) {
    res
      .status(response.status)
      .set(response.headers ?? {})
      .type(PROBLEM_CONTENT_TYPE)
      .end(problemBody(response, instance));
    return;
  }
  res.status(response.status).set(response.headers).end(response.body);
}

/**
 * Runs the rest of the chain with `res.write` / `res.end` held back: what the route writes is
 * captured, so it can be committed with the key before anything reaches the client.
 */
function captureResponse(res: Response, next: NextFunction): Promise<StoredResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const write = res.write;
    const end = res.end;
    const restore = () => {
      res.write = write;
      res.end = end;
    };
    const toBuffer = (chunk: unknown, encoding?: unknown) =>
      Buffer.isBuffer(chunk)
        ? chunk
        : Buffer.from(String(chunk), typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
    res.write = ((chunk: unknown, encoding?: unknown) => {
      if (chunk !== undefined && chunk !== null) chunks.push(toBuffer(chunk, encoding));
      return true;
    }) as Response['write'];
    res.end = ((chunk?: unknown, encoding?: unknown) => {
      if (chunk !== undefined && chunk !== null && typeof chunk !== 'function')
        chunks.push(toBuffer(chunk, encoding));
      restore();
      // Express computes these for the body it was about to write; they are recomputed on send.
      res.removeHeader('content-length');
      resolve({
        status: res.statusCode,
        headers: describingHeaders(res.getHeaders() as Record<string, unknown>),
        body: Buffer.concat(chunks).toString('utf8'),
      });
      return res;
    }) as Response['end'];
    try {
      next();
    } catch (error) {
      restore();
      reject(error);
    }
  });
}

/**
 * Express middleware. Put it on the routes that change state, after `express.json()`; the
 * handler finds the transaction at `req.tx`. The status your handler (or your error middleware)
 * answers decides: 2xx/4xx are committed with the key and replayed, 5xx is rolled back.
 * @example
 * app.post('/payments', express.json(), idempotency({ engine }), async (req, res) => {
 *   await req.tx!.query('insert …');
 *   res.status(201).json(payment);
 * });
 */
export function idempotency(options: ExpressIdempotencyOptions): RequestHandler {
  const { engine } = options;
  const required = options.required ?? true;
  const tenantOf = options.tenant ?? (() => '');
  return (req, res, next) => {
    const read = readKey(req.headers['idempotency-key'], required);
    if ('problem' in read) return send(res, read.problem, req.originalUrl);
    req.idempotencyKey = read.key;
    const run = (tx: Tx) => {
      req.tx = tx;
      return captureResponse(res, next);
    };
    const work =
      read.key === undefined
        ? engine.transact(run)
        : engine
            .execute(
              {
                tenant: tenantOf(req),
                key: read.key,
                fingerprint: fingerprint({ method: req.method, url: req.originalUrl, body: req.body }),
              },
              run,
            )
            .then((outcome) => (outcome.kind === 'executed' ? outcome.response : outcomeResponse(outcome)));
    work.then(
      (response) => send(res, response, req.originalUrl),
      (error: unknown) => {
        const problem = engineErrorProblem(error);
        if (problem) send(res, problem, req.originalUrl);
        else next(error);
      },
    );
  };
}

export default idempotency;
