import type { FastifyPluginAsync } from 'fastify';
import { notFound } from '../problem.js';
import { attemptSchema, idParam, listOf } from './schemas.js';

/**
 * Deliveries: the attempts of one. Registered with a prefix:
 * `app.register(deliveryRoutes, { prefix: '/v1/deliveries' })`.
 */
export const deliveryRoutes: FastifyPluginAsync = async (app) => {
  const w = app.webhooks;
  app.get<{ Params: { id: string } }>(
    '/:id/attempts',
    {
      config: { portal: 'read' },
      schema: {
        operationId: 'listDeliveryAttempts',
        summary: 'List the attempts of a delivery',
        description: 'Every attempt of one delivery: when, how long, the status or error, an excerpt.',
        tags: ['webhooks'],
        params: idParam('^[0-9A-Za-z_]{1,64}$'),
        response: { 200: listOf(attemptSchema) },
      },
    },
    async (request) => {
      // Under a portal session: a delivery to one of its application's endpoints, else a 404.
      const attempts = await w.listAttempts(app.reads, {
        tenant: request.tenant,
        deliveryId: request.params.id,
        ...(request.portal ? { applicationId: request.portal.applicationId } : {}),
      });
      if (!attempts) throw notFound('delivery');
      return {
        object: 'list',
        data: attempts.map((a) => ({ ...a, object: 'attempt' })),
        hasMore: false,
        nextCursor: null,
      };
    },
  );
};
