import type { Context, MiddlewareHandler } from 'hono';
import {
  DEFAULT_BODY_LIMIT,
  PROBLEM_CONTENT_TYPE,
  problemBody,
  problemForError,
  ReceiverErrorCode,
  type WebhookProblem,
  webhookProblem,
} from './http.js';
import { createVerifier, type VerifiedWebhook, type VerifierOptions } from './verify.js';

export interface HonoWebhookOptions extends VerifierOptions {
  /** The largest body read, in bytes. @default 1048576 */
  bodyLimit?: number;
}

/** Variables this middleware sets: `c.get('webhook')` and `c.get('rawBody')`. */
export type WebhookVariables = { webhook: VerifiedWebhook; rawBody: Uint8Array };

function problemResponse(c: Context, problem: WebhookProblem): Response {
  const headers: Record<string, string> = { 'content-type': PROBLEM_CONTENT_TYPE };
  if (problem.status === 413) headers['connection'] = 'close';
  return new Response(problemBody(problem, new URL(c.req.url).pathname), { status: problem.status, headers });
}

/**
 * Hono middleware. Reads the raw body (Hono caches it, so the handler can still call
 * `c.req.json()`), verifies it, and sets `c.get('webhook')` and `c.get('rawBody')`. A failure is
 * answered with 400/401 `application/problem+json` and a stable `code`. Runs on any runtime with
 * Web Crypto (Workers, Deno, Bun, Node).
 * @example
 * app.post('/webhooks', verifyWebhook({ secrets: [env.WEBHOOK_SECRET] }), async (c) => {
 *   await handle(c.get('webhook').id, await c.req.json());
 *   return c.body(null, 204);
 * });
 */
export function verifyWebhook(
  options: HonoWebhookOptions,
): MiddlewareHandler<{ Variables: WebhookVariables }> {
  const verifier = createVerifier(options);
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  return async (c, next) => {
    const declared = c.req.header('content-length');
    if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > limit) {
      return problemResponse(
        c,
        webhookProblem(ReceiverErrorCode.BodyTooLarge, `The body exceeds ${limit} bytes.`),
      );
    }
    // Without a content-length (chunked), arrayBuffer() reads it all; put hono/body-limit in front
    // to stop a stream early.
    const raw = new Uint8Array(await c.req.arrayBuffer());
    if (raw.length > limit) {
      return problemResponse(
        c,
        webhookProblem(ReceiverErrorCode.BodyTooLarge, `The body exceeds ${limit} bytes.`),
      );
    }
    try {
      c.set('webhook', await verifier.verify(raw, c.req.raw.headers));
    } catch (error) {
      const problem = problemForError(error);
      if (!problem) throw error;
      return problemResponse(c, problem);
    }
    c.set('rawBody', raw);
    await next();
    return undefined;
  };
}

export default verifyWebhook;
