import type { FastifyPluginAsync } from 'fastify';
import type { PortalData } from '../data/portal.js';
import { SESSION_ID } from '../portal/token.js';
import { notFound } from '../problem.js';
import { idParam } from './schemas.js';

export interface PortalSessionRouteOptions {
  data: PortalData;
}

/**
 * `GET /v1/portal-sessions/{id}`: one session, without its token or link. The tenant reads any of
 * its sessions; a portal token reads its own session only (another id is a 404), which is how the
 * portal page learns what it may show: whether the session is read-only, which application it is
 * for, when it ends. Paths are absolute: `app.register(portalSessionRoute, { data })`.
 */
export const portalSessionRoute: FastifyPluginAsync<PortalSessionRouteOptions> = async (app, options) => {
  app.get<{ Params: { id: string } }>(
    '/v1/portal-sessions/:id',
    {
      config: { portal: 'read' },
      schema: {
        operationId: 'getPortalSession',
        summary: 'Retrieve a portal session (a portal token: its own)',
        description:
          'Its application, whether it is read-only, when it expires and whether it was revoked; never ' +
          "its token. A portal token can read its own session only; another session, or another tenant's, " +
          'is a 404.',
        tags: ['portal'],
        params: idParam(SESSION_ID),
        response: {
          200: {
            type: 'object',
            required: ['object', 'id', 'applicationId', 'application', 'readOnly', 'expiresAt', 'createdAt'],
            properties: {
              object: { type: 'string', const: 'portal_session' },
              id: { type: 'string' },
              applicationId: { type: 'string' },
              application: {
                type: ['object', 'null'],
                required: ['id', 'name', 'uid'],
                properties: {
                  id: { type: 'string' },
                  name: { type: 'string' },
                  uid: { type: ['string', 'null'] },
                },
              },
              readOnly: { type: 'boolean' },
              expiresAt: { type: 'string', format: 'date-time' },
              revokedAt: { type: ['string', 'null'], format: 'date-time' },
              createdAt: { type: 'string', format: 'date-time' },
            },
          },
        },
      },
    },
    async (request) => {
      const { id } = request.params;
      if (request.portal && request.portal.sessionId !== id) throw notFound('portal session');
      const row = await options.data.sessionById(app.sql, id);
      if (!row || row.tenant !== request.tenant) throw notFound('portal session');
      const application = await app.webhooks.getApplication(app.sql, {
        tenant: request.tenant,
        id: row.application_id,
      });
      return {
        object: 'portal_session',
        id: row.id,
        applicationId: row.application_id,
        application: application
          ? { id: application.id, name: application.name, uid: application.uid ?? null }
          : null,
        readOnly: row.read_only,
        expiresAt: new Date(row.expires_at).toISOString(),
        revokedAt: row.revoked_at ? new Date(row.revoked_at).toISOString() : null,
        createdAt: new Date(row.created_at).toISOString(),
      };
    },
  );
};
