import { txOf } from '@surety/idempotency/fastify';
import {
  isPollLimitError,
  MAX_CURSOR_LENGTH,
  MAX_POLL_LIMIT,
  type PollPage,
  PollWaits,
  type PollWaitsOptions,
} from '@surety/webhooks';
import type { FastifyPluginAsync } from 'fastify';
import { HttpProblem } from '../problem.js';
import { visibleEndpoint } from './endpoint-lookup.js';
import { ENDPOINT_ID } from './endpoint-schemas.js';
import { idParam } from './schemas.js';

/** The longest a long-poll waits (`?wait=`, seconds). */
export const MAX_POLL_WAIT_SECONDS = 30;

export interface PollRoutesOptions {
  /** Long-poll waits (per tenant cap, check interval). */
  waits?: PollWaitsOptions;
}

const cursorSchema = {
  type: 'string',
  minLength: 1,
  maxLength: MAX_CURSOR_LENGTH,
  description:
    'An opaque cursor this endpoint returned. Tamper-proof: one that was edited or made up is a 400 ' +
    '`invalid_cursor`; one of another endpoint is a 404.',
} as const;

const pageSchema = {
  type: 'object',
  required: ['object', 'data', 'cursor', 'hasMore'],
  properties: {
    object: { type: 'string', const: 'poll_page' },
    data: {
      type: 'array',
      items: {
        type: 'object',
        required: ['deliveryId', 'event'],
        properties: {
          deliveryId: { type: 'string', description: 'The delivery, as the deliveries listing shows it.' },
          event: {
            type: 'object',
            description: 'The event envelope, byte for byte the body a webhook of this event carries.',
            properties: {
              id: { type: 'string' },
              type: { type: 'string' },
              apiVersion: { type: 'string' },
              createdAt: { type: 'string' },
              sequence: { type: 'integer' },
              data: {},
            },
          },
        },
      },
    },
    cursor: {
      type: 'string',
      description:
        'After the last event answered (the one read from when none): acknowledge it with POST …/poll/ack, ' +
        'or read past it with `?after=`.',
    },
    hasMore: { type: 'boolean', description: 'More events are past `cursor` already: read again at once.' },
  },
} as const;

const notPollProblem = (kind: string) =>
  new HttpProblem(
    409,
    'not_a_poll_endpoint',
    'Not a poll endpoint',
    `This is a ${kind} endpoint: its events are delivered to it, not read. Create one of kind poll.`,
  );

/** The page as JSON, each event's envelope embedded as the exact bytes a webhook would carry. */
const pageJson = (page: PollPage) =>
  `{"object":"poll_page","data":[${page.data
    .map((d) => `{"deliveryId":${JSON.stringify(d.deliveryId)},"event":${d.envelope}}`)
    .join(',')}],"cursor":${JSON.stringify(page.cursor)},"hasMore":${page.hasMore}}`;

/**
 * Pull delivery (issue 36, docs/destinations.md "Poll"): a poll endpoint's consumer reads its
 * events (`GET …/poll`, long-polling up to `wait` seconds) and acknowledges them (`POST
 * …/poll/ack`). Registered with the endpoints' prefix. A portal token reads its application's poll
 * endpoints (another's is a 404, as everywhere in the portal).
 */
export const endpointPollRoutes: FastifyPluginAsync<PollRoutesOptions> = async (app, options) => {
  const w = app.webhooks;
  const waits = new PollWaits(w, options.waits);
  // Before the server waits for requests in flight: a long-poll answers what it has at once.
  app.addHook('preClose', async () => waits.close());
  const params = { params: idParam(ENDPOINT_ID) };

  app.get<{ Params: { id: string }; Querystring: { wait: number; limit: number; after?: string } }>(
    '/:id/poll',
    {
      config: { portal: 'read', problems: ['invalid_cursor', 'not_a_poll_endpoint', 'too_many_polls'] },
      schema: {
        operationId: 'pollWebhookEndpoint',
        summary: "Read a poll endpoint's events past its cursor (long-poll with wait)",
        description:
          'Answers up to `limit` events past the acknowledged cursor (or past `after`), in cursor order, ' +
          'and the cursor after them. At least once: events read and not acknowledged are answered again. ' +
          `With \`wait\` (at most ${MAX_POLL_WAIT_SECONDS} s), a read that finds none waits for one, holding ` +
          'no database connection meanwhile; a tenant has a bounded number of waits at once (429 ' +
          '`too_many_polls` past it).',
        tags: ['webhooks'],
        ...params,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            wait: {
              type: 'integer',
              minimum: 0,
              maximum: MAX_POLL_WAIT_SECONDS,
              default: 0,
              description: 'Seconds to wait for an event when there is none yet.',
            },
            limit: { type: 'integer', minimum: 1, maximum: MAX_POLL_LIMIT, default: 100 },
            after: cursorSchema,
          },
        },
        response: { 200: pageSchema },
      },
    },
    async (request, reply) => {
      const { tenant } = request;
      const endpoint = await visibleEndpoint(w, app.sql, request, request.params.id);
      if (endpoint.kind !== 'poll') throw notPollProblem(endpoint.kind);
      const { wait, limit, after } = request.query;
      const input = { tenant, id: endpoint.id, limit, after };
      let page = await w.readPoll(app.sql, input);
      if (page.data.length === 0 && wait > 0) {
        let release: () => void;
        try {
          release = waits.acquire(tenant);
        } catch (error) {
          if (!isPollLimitError(error)) throw error;
          app.metrics.pollRefused.inc();
          throw new HttpProblem(
            429,
            'too_many_polls',
            'Too many long-polls',
            `This tenant already has ${error.limit} long-polls waiting; wait for one to answer, or poll without wait.`,
            { limit: error.limit },
            { 'retry-after': '1' },
          );
        }
        const gone = new AbortController();
        const onClose = () => gone.abort();
        reply.raw.once('close', onClose);
        try {
          const deadline = Date.now() + wait * 1000;
          while (page.data.length === 0 && !gone.signal.aborted && Date.now() < deadline) {
            await waits.wait(deadline - Date.now(), gone.signal);
            if (gone.signal.aborted) break;
            page = await w.readPoll(app.sql, { ...input, after: page.cursor });
            if (waits.closing) break;
          }
        } finally {
          reply.raw.off('close', onClose);
          release();
        }
      }
      app.metrics.pollEvents.inc({ stage: 'read' }, page.data.length);
      return reply.type('application/json; charset=utf-8').send(pageJson(page));
    },
  );

  app.post<{ Params: { id: string }; Body: { cursor: string } }>(
    '/:id/poll/ack',
    {
      config: {
        idempotency: { required: false },
        portal: 'write',
        problems: ['invalid_cursor', 'not_a_poll_endpoint'],
      },
      schema: {
        operationId: 'ackWebhookEndpointPoll',
        summary: "Acknowledge a poll endpoint's events up to a cursor",
        description:
          'Moves the endpoint’s durable cursor to the one given (never back: an older one changes nothing) ' +
          'and marks the deliveries it passes delivered. The next read answers the events after it.',
        tags: ['webhooks'],
        ...params,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['cursor'],
          properties: { cursor: cursorSchema },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              object: { type: 'string', const: 'poll_cursor' },
              cursor: { type: 'string', description: 'The acknowledged cursor now.' },
              acknowledged: {
                type: 'integer',
                description: 'Deliveries this acknowledgement completed (0 when repeated).',
              },
            },
          },
        },
      },
    },
    async (request) => {
      const endpoint = await visibleEndpoint(w, txOf(request), request, request.params.id);
      if (endpoint.kind !== 'poll') throw notPollProblem(endpoint.kind);
      const done = await w.ackPoll(txOf(request), {
        tenant: request.tenant,
        id: endpoint.id,
        cursor: request.body.cursor,
      });
      app.metrics.pollEvents.inc({ stage: 'acknowledged' }, done.acknowledged);
      return { object: 'poll_cursor', ...done };
    },
  );
};
