import { Readable } from 'node:stream';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import {
  DEFAULT_BODY_LIMIT,
  PROBLEM_CONTENT_TYPE,
  problemBody,
  problemForError,
  ReceiverErrorCode,
  type WebhookProblem,
  webhookProblem,
} from './http.js';
import { declaredTooLarge, readBody } from './read-body.js';
import { createVerifier, type VerifiedWebhook, type Verifier, type VerifierOptions } from './verify.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body bytes exactly as received, on webhook routes. */
    rawBody: Buffer | undefined;
    /** What verification established (event id, format, which secret matched), on webhook routes. */
    webhook: VerifiedWebhook | undefined;
  }
  interface FastifyContextConfig {
    /**
     * Verifies this route's requests as webhooks. `true` uses the plugin's options; an object
     * overrides some of them for this route (another provider's secrets, say).
     */
    webhook?: boolean | Partial<FastifyWebhookOptions>;
  }
}

export interface FastifyWebhookOptions extends VerifierOptions {
  /**
   * The largest body read for verification, in bytes.
   * @default the route's bodyLimit, else the server's (Fastify's default is 1048576)
   */
  bodyLimit?: number;
}

const failed = Symbol('surety.webhook.failed');
type Marked = FastifyRequest & { [failed]?: true };

function reject(request: FastifyRequest, reply: FastifyReply, problem: WebhookProblem): void {
  (request as Marked)[failed] = true;
  if (problem.status === 413) reply.header('connection', 'close');
  reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).send(problemBody(problem, request.url));
}

// Runs after parsing: a request that failed verification never reaches the handler, even when an
// async onSend hook kept the problem response from finishing before the parser ran.
const guard: preHandlerAsyncHookHandler = async (request, reply) => {
  if ((request as Marked)[failed]) {
    if (!reply.sent) throw new Error('webhook verification failed');
    return reply;
  }
  return undefined;
};

const plugin: FastifyPluginAsync<FastifyWebhookOptions> = async (fastify, options) => {
  fastify.decorateRequest('rawBody', undefined);
  fastify.decorateRequest('webhook', undefined);

  fastify.addHook('onRoute', (route) => {
    const setting = route.config?.webhook;
    if (!setting) return;
    const merged: FastifyWebhookOptions = typeof setting === 'object' ? { ...options, ...setting } : options;
    const verifier: Verifier = createVerifier(merged);
    const limit =
      merged.bodyLimit ?? route.bodyLimit ?? fastify.initialConfig.bodyLimit ?? DEFAULT_BODY_LIMIT;

    // preParsing sees the body stream before any content-type parser: read the bytes, verify them,
    // and hand the parser a fresh stream of the same bytes, so request.body is parsed as usual.
    const preParsing = async (request: FastifyRequest, reply: FastifyReply, payload: Readable) => {
      if (declaredTooLarge(request.headers['content-length'], limit)) {
        reject(
          request,
          reply,
          webhookProblem(ReceiverErrorCode.BodyTooLarge, `The body exceeds ${limit} bytes.`),
        );
        return payload;
      }
      const raw = await readBody(payload, limit);
      if (raw === 'too-large') {
        reject(
          request,
          reply,
          webhookProblem(ReceiverErrorCode.BodyTooLarge, `The body exceeds ${limit} bytes.`),
        );
        return Readable.from([]);
      }
      request.rawBody = raw;
      try {
        request.webhook = await verifier.verify(raw, request.headers);
      } catch (error) {
        const problem = problemForError(error);
        if (!problem) throw error;
        if (problem.status >= 500) request.log.error({ err: error }, 'webhook verification misconfigured');
        reject(request, reply, problem);
      }
      const replay = Readable.from(raw.length === 0 ? [] : [raw]);
      // Fastify's parsers check the length they read against this.
      (replay as Readable & { receivedEncodedLength?: number }).receivedEncodedLength = raw.length;
      return replay;
    };
    route.preParsing = [...toArray(route.preParsing), preParsing] as typeof route.preParsing;
    route.preHandler = [guard, ...toArray(route.preHandler)] as typeof route.preHandler;
  });
};

function toArray<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * The Fastify plugin. Routes opt in with `config: { webhook: true }`: the raw body is kept as
 * `request.rawBody`, verified before the handler runs, and a failure is answered with a 400/401
 * `application/problem+json` carrying a stable `code`. `request.body` is parsed as usual.
 * @example
 * await app.register(webhooks, { secrets: [process.env.WEBHOOK_SECRET!] });
 * app.post('/webhooks', { config: { webhook: true } }, async (request) => {
 *   await handle(request.webhook!.id, request.body);
 *   return { received: true };
 * });
 */
export const webhooks: FastifyPluginAsync<FastifyWebhookOptions> = Object.assign(plugin, {
  // What fastify-plugin sets: decorations and hooks apply to the routes of the registering scope.
  [Symbol.for('skip-override')]: true,
  [Symbol.for('fastify.display-name')]: '@surety/webhook-verify',
  [Symbol.for('plugin-meta')]: { name: '@surety/webhook-verify', fastify: '5.x' },
});
export default webhooks;
