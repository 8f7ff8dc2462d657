import type { NextFunction, Request, RequestHandler, Response } from 'express';
import {
  DEFAULT_BODY_LIMIT,
  isJsonType,
  PROBLEM_CONTENT_TYPE,
  problemBody,
  problemForError,
  ReceiverErrorCode,
  type WebhookProblem,
  webhookProblem,
} from './http.js';
import { declaredTooLarge, readBody } from './read-body.js';
import { createVerifier, type VerifiedWebhook, type VerifierOptions } from './verify.js';

declare global {
  namespace Express {
    interface Request {
      /** The body bytes exactly as received (set by `verifyWebhook()`). */
      rawBody?: Buffer;
      /** What verification established (set by `verifyWebhook()`). */
      webhook?: VerifiedWebhook;
    }
  }
}

export interface ExpressWebhookOptions extends VerifierOptions {
  /** The largest body read, in bytes. @default 1048576 */
  bodyLimit?: number;
  /**
   * Parse a JSON body (`application/json`, `application/*+json`) into `req.body` after
   * verification; otherwise `req.body` is the raw Buffer.
   * @default true
   */
  parseJson?: boolean;
}

function send(req: Request, res: Response, problem: WebhookProblem): void {
  if (problem.status === 413) res.set('connection', 'close');
  res.status(problem.status).type(PROBLEM_CONTENT_TYPE).send(problemBody(problem, req.originalUrl));
}

/**
 * Express middleware: reads the raw body itself, verifies it, then sets `req.rawBody`,
 * `req.webhook` and `req.body` (parsed JSON, or the Buffer). Put it on the webhook route *instead
 * of* `express.json()`; when `express.raw()` ran first its Buffer is used. A failure is answered
 * with 400/401 `application/problem+json` and a stable `code`; the handler does not run.
 * @example
 * app.post('/webhooks', verifyWebhook({ secrets: [process.env.WEBHOOK_SECRET!] }), async (req, res) => {
 *   await handle(req.webhook!.id, req.body);
 *   res.sendStatus(204);
 * });
 */
export function verifyWebhook(options: ExpressWebhookOptions): RequestHandler {
  const verifier = createVerifier(options);
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const parseJson = options.parseJson ?? true;
  return (req: Request, res: Response, next: NextFunction) => {
    const work = async () => {
      let raw: Buffer;
      if (Buffer.isBuffer(req.body)) {
        raw = req.body; // express.raw() ran first
      } else if (req.readableEnded || req.body !== undefined) {
        send(
          req,
          res,
          webhookProblem(
            ReceiverErrorCode.RawBodyUnavailable,
            'A body parser consumed the request before verification; mount verifyWebhook() without express.json() on this route.',
          ),
        );
        return;
      } else {
        if (declaredTooLarge(req.headers['content-length'], limit)) {
          send(req, res, webhookProblem(ReceiverErrorCode.BodyTooLarge, `The body exceeds ${limit} bytes.`));
          return;
        }
        const read = await readBody(req, limit);
        if (read === 'too-large') {
          send(req, res, webhookProblem(ReceiverErrorCode.BodyTooLarge, `The body exceeds ${limit} bytes.`));
          return;
        }
        raw = read;
      }
      req.rawBody = raw;
      try {
        req.webhook = await verifier.verify(raw, req.headers);
      } catch (error) {
        const problem = problemForError(error);
        if (!problem) throw error;
        send(req, res, problem);
        return;
      }
      if (parseJson && isJsonType(req.headers['content-type']) && raw.length > 0) {
        try {
          req.body = JSON.parse(raw.toString('utf8'));
        } catch {
          // Authentic but not JSON: the sender's bug, and retrying will not fix it.
          send(
            req,
            res,
            webhookProblem(ReceiverErrorCode.InvalidJson, 'The verified body is not valid JSON.'),
          );
          return;
        }
      } else {
        req.body = raw;
      }
      next();
    };
    work().catch(next);
  };
}

export default verifyWebhook;
