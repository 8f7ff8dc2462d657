import type { Tx } from '@surety/db';
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import { describingHeaders, PROBLEM_CONTENT_TYPE, problemBody } from './http.js';
import type { PhasedOperation } from './phases.js';
import { type AdapterOptions, errorAnswer, type RunResult, requireTx, runIdempotent } from './run.js';
import type { StoredResponse } from './types.js';

declare global {
  namespace Express {
    interface Request {
      /** The transaction the idempotency record commits in (set by `idempotency()`); `txOf(req)` types it. */
      tx?: Tx;
      idempotencyKey?: string | undefined;
    }
  }
}

/** The options of the Express middleware: those of every adapter, and whether the key is required. */
export interface ExpressIdempotencyOptions extends AdapterOptions<Request> {
  /** @default true */
  required?: boolean;
}

/** The middleware, with the error handler that gives `errorResponse` the route's errors. */
export interface ExpressIdempotency extends RequestHandler {
  /**
   * Express hands a route's error to the error handlers registered after it, never to a middleware
   * before it: mount this one (`app.use(idem.errors)`) before your own error handler for
   * `errorResponse` to see them. Errors it does not store go on to the next error handler.
   */
  errors: ErrorRequestHandler;
}

/**
 * The transaction of a route behind `idempotency()`, typed as present. Throws NoTransactionError
 * (`SURETY_IDEMPOTENCY_NO_TRANSACTION`) on a route without the middleware.
 */
export const txOf = (req: Request): Tx => requireTx(req.tx);

function send(res: Response, result: RunResult, instance: string): void {
  if (result.kind === 'problem') {
    const { problem } = result;
    res
      .status(problem.status)
      .set(problem.headers ?? {})
      .type(PROBLEM_CONTENT_TYPE)
      .end(problemBody(problem, instance));
    return;
  }
  res.status(result.response.status).set(result.response.headers).end(result.response.body);
}

/**
 * Runs the rest of the chain with `res.write` / `res.end` held back: what the route writes is
 * captured, so it can be committed with the key before anything reaches the client. `answer` ends
 * the capture with a response of our own (what `errorResponse` made of the route's error).
 */
function captureResponse(
  res: Response,
  next: NextFunction,
  onAnswer: (answer: (response: StoredResponse) => void) => void,
): Promise<StoredResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const write = res.write;
    const end = res.end;
    const restore = () => {
      res.write = write;
      res.end = end;
    };
    onAnswer((response) => {
      restore();
      resolve(response);
    });
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
 * handler finds the transaction with `txOf(req)`. The status your handler (or your error middleware)
 * answers decides: 2xx/4xx are committed with the key and replayed, 5xx is rolled back.
 * @example
 * const idem = idempotency({ engine });
 * app.post('/payments', express.json(), idem, async (req, res) => {
 *   await txOf(req).query('insert …');
 *   res.status(201).json(payment);
 * });
 * app.use(idem.errors); // only needed for `errorResponse`
 */
export function idempotency(options: ExpressIdempotencyOptions): ExpressIdempotency {
  const required = options.required ?? true;
  // The capture in progress of each request, for `errors` to end with a stored answer.
  const answers = new WeakMap<Request, (response: StoredResponse) => void>();
  const middleware: RequestHandler = (req, res, next) => {
    runIdempotent({
      options,
      request: req,
      header: req.headers['idempotency-key'],
      required,
      fingerprintInput: () => ({ method: req.method, url: req.originalUrl, body: req.body }),
      handler: (tx, key) => {
        req.idempotencyKey = key;
        req.tx = tx;
        return captureResponse(res, next, (answer) => answers.set(req, answer)).finally(() =>
          answers.delete(req),
        );
      },
    }).then(
      (result) => send(res, result, req.originalUrl),
      (error: unknown) => next(error),
    );
  };
  const errors: ErrorRequestHandler = (error, req, _res, next) => {
    const answer = answers.get(req);
    const stored = answer && errorAnswer({ options, error, request: req });
    if (!answer || !stored) return next(error);
    answer(stored);
  };
  return Object.assign(middleware, { errors });
}

/**
 * A route that runs a phased operation (docs/side-effects.md), after `express.json()`: `input`
 * validates the request and makes the operation's input (throw to refuse it; the error goes to
 * `next`), the operation runs its phases and its answer is sent. The key is required.
 * @example
 * app.post('/payments', express.json(), phased({ engine }, createPayment, (req) => req.body));
 */
export function phased<I>(
  options: AdapterOptions<Request>,
  operation: PhasedOperation<I>,
  input: (req: Request, key: string) => I | Promise<I>,
): RequestHandler {
  return (req, res, next) => {
    runIdempotent({
      options,
      request: req,
      header: req.headers['idempotency-key'],
      required: true,
      fingerprintInput: () => ({ method: req.method, url: req.originalUrl, body: req.body }),
      phased: {
        operation,
        input: (key) => {
          req.idempotencyKey = key;
          return input(req, key);
        },
      },
      handler: () => Promise.reject(new TypeError('unreachable: a phased route has no handler')),
    }).then(
      (result) => send(res, result, req.originalUrl),
      (error: unknown) => next(error),
    );
  };
}

export default idempotency;
