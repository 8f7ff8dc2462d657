import { txOf } from '@surety/idempotency/fastify';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { conditionalUpdate, currentState, sendValidators } from '../conditional-update.js';
import type { PortalData } from '../data/portal.js';
import { checkOrigins, MAX_FRAME_ANCESTORS } from '../portal/origins.js';
import { issueToken, SESSION_ID } from '../portal/token.js';
import { HttpProblem, notFound } from '../problem.js';
import { routePreconditions } from '../route-config.js';
import { APPLICATION_REF } from './application-schemas.js';
import { presentSettings, sessionSchema, settingsSchema } from './portal-schemas.js';
import { idParam } from './schemas.js';

/** The longest a portal session may last (a day), and the default (an hour). */
export const MAX_SESSION_SECONDS = 86_400;
export const DEFAULT_SESSION_SECONDS = 3600;

export interface PortalRoutesOptions {
  data: PortalData;
  /** SURETY_PUBLIC_URL; unset: links are built from the request's Host. */
  publicUrl?: string | undefined;
  /** The clock sessions are issued and expire by. */
  now: () => number;
}

/** Where session links point: the configured public URL, else the request's own origin. */
function baseUrl(request: FastifyRequest, publicUrl: string | undefined): string {
  if (publicUrl) return publicUrl;
  return `${request.protocol}://${request.host}`;
}

/**
 * Portal sessions (open one for an application, read the current one, revoke one) and the
 * tenant's portal settings (which origins may frame the portal). A portal token may read and end
 * its own session, nothing more: it cannot open one, revoke another, or change the settings.
 * Paths are absolute: `app.register(portalRoutes, { data, now })`.
 */
export const portalRoutes: FastifyPluginAsync<PortalRoutesOptions> = async (app, options) => {
  const { data } = options;

  app.post<{
    Params: { id: string };
    Body: { expiresInSeconds?: number; readOnly?: boolean } | null | undefined;
  }>(
    '/v1/applications/:id/portal-sessions',
    {
      config: { idempotency: { required: false } },
      schema: {
        operationId: 'createPortalSession',
        summary: "Open a portal session for one application's customer",
        description:
          'Answers a link to the consumer portal and its bearer token, scoped to this application (id or ' +
          'uid): its endpoints, the event types, its events, deliveries and attempts. The token is in ' +
          "this answer only (and in the stored answer to its Idempotency-Key, for the key's lifetime); " +
          `it lasts expiresInSeconds (default ${DEFAULT_SESSION_SECONDS}, at most ${MAX_SESSION_SECONDS}) ` +
          'unless revoked. readOnly sessions cannot change anything.',
        tags: ['portal'],
        params: idParam(APPLICATION_REF),
        body: {
          type: ['object', 'null'],
          additionalProperties: false,
          properties: {
            expiresInSeconds: {
              type: 'integer',
              minimum: 60,
              maximum: MAX_SESSION_SECONDS,
              default: DEFAULT_SESSION_SECONDS,
            },
            readOnly: { type: 'boolean', default: false },
          },
        },
        response: { 201: sessionSchema },
      },
    },
    async (request, reply) => {
      const tx = txOf(request);
      const application = await app.webhooks.getApplication(tx, {
        tenant: request.tenant,
        id: request.params.id,
      });
      if (!application) throw notFound('application');
      const now = options.now();
      const seconds = request.body?.expiresInSeconds ?? DEFAULT_SESSION_SECONDS;
      const { id, token, tokenHash } = issueToken(now);
      const row = await data.insertSession(tx, {
        id,
        tenant: request.tenant,
        applicationId: application.id,
        tokenHash,
        readOnly: request.body?.readOnly ?? false,
        expiresAt: new Date(now + seconds * 1000).toISOString(),
        createdAt: new Date(now).toISOString(),
      });
      reply.code(201);
      return {
        object: 'portal_session',
        id,
        applicationId: row.application_id,
        url: `${baseUrl(request, options.publicUrl)}/portal/${id}#token=${token}`,
        token,
        readOnly: row.read_only,
        expiresAt: new Date(row.expires_at).toISOString(),
        createdAt: new Date(row.created_at).toISOString(),
      };
    },
  );

  app.get(
    '/v1/portal-session',
    {
      config: { portal: 'read' },
      schema: {
        operationId: 'getCurrentPortalSession',
        summary: 'Retrieve the portal session of this token (portal tokens only)',
        description:
          "What the portal page shows about its own session: the application's name, whether the session " +
          'is read-only, when it expires. Never the token. With an API key it is a 404: there is no session.',
        tags: ['portal'],
        response: {
          200: {
            type: 'object',
            required: [
              'object',
              'id',
              'applicationId',
              'applicationName',
              'readOnly',
              'expiresAt',
              'createdAt',
            ],
            properties: {
              object: { type: 'string', const: 'portal_session' },
              id: { type: 'string' },
              applicationId: { type: 'string' },
              applicationName: { type: ['string', 'null'] },
              readOnly: { type: 'boolean' },
              expiresAt: { type: 'string', format: 'date-time' },
              createdAt: { type: 'string', format: 'date-time' },
            },
          },
        },
      },
    },
    async (request) => {
      const portal = request.portal;
      const row = portal ? await data.sessionById(app.sql, portal.sessionId) : undefined;
      if (!row) throw notFound('portal session: authenticate with a portal token');
      const application = await app.webhooks.getApplication(app.sql, {
        tenant: row.tenant,
        id: row.application_id,
      });
      return {
        object: 'portal_session',
        id: row.id,
        applicationId: row.application_id,
        applicationName: application?.name ?? null,
        readOnly: row.read_only,
        expiresAt: new Date(row.expires_at).toISOString(),
        createdAt: new Date(row.created_at).toISOString(),
      };
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/v1/portal-sessions/:id',
    {
      // Revoking is idempotent by its nature: revoking again answers 204 and keeps the first time.
      // A portal token may end its own session (the page's "End session"), read-only or not: that
      // changes nothing of the application's.
      config: { idempotency: false, portal: 'read' },
      schema: {
        operationId: 'revokePortalSession',
        summary: 'Revoke a portal session',
        description:
          'Its token stops working at once (401 portal_session_revoked). Revoking a revoked or expired ' +
          "session answers 204 as well; one that is not the tenant's is a 404. A portal token may revoke " +
          'its own session only (another is a 404).',
        tags: ['portal'],
        params: idParam(SESSION_ID),
        response: { 204: { description: 'Revoked', type: 'null' } },
      },
    },
    async (request, reply) => {
      if (request.portal && request.portal.sessionId !== request.params.id) throw notFound('portal session');
      const revoked = await data.revokeSession(app.sql, {
        tenant: request.tenant,
        id: request.params.id,
        at: new Date(options.now()).toISOString(),
      });
      if (!revoked) throw notFound('portal session');
      return reply.code(204).send();
    },
  );

  app.get(
    '/v1/portal-settings',
    {
      config: { precondition: 'read', sends: ['etag'] },
      schema: {
        operationId: 'getPortalSettings',
        summary: "Retrieve the tenant's portal settings",
        description:
          'Which origins may embed the portal in a frame (`frameAncestors`, empty until set: none may), ' +
          'with the ETag for a conditional PUT.',
        tags: ['portal'],
        response: { 200: settingsSchema },
      },
    },
    async (request, reply) => {
      const row = await data.settings(app.sql, { tenant: request.tenant });
      const current = { version: row?.version ?? 0 };
      sendValidators(reply, current);
      const check = routePreconditions(request, reply, currentState(current));
      if (!check.proceed) return reply.send(check.payload);
      return presentSettings(row);
    },
  );

  app.put<{ Body: { frameAncestors: string[] } }>(
    '/v1/portal-settings',
    {
      config: {
        idempotency: { required: false },
        precondition: 'required',
        sends: ['etag'],
        problems: ['invalid_frame_ancestor', 'version_conflict'],
      },
      schema: {
        operationId: 'setPortalSettings',
        summary: "Replace the tenant's portal settings (If-Match required)",
        description:
          'Sets the origins that may frame the portal: each `https://host[:port]` (http for localhost, ' +
          '127.0.0.1 and [::1] only), `https://*.example.com` for every subdomain of a domain, at most ' +
          `${MAX_FRAME_ANCESTORS}; an empty list lets no origin frame it. Sessions already open use the ` +
          'new list on their next page load.',
        tags: ['portal'],
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['frameAncestors'],
          properties: {
            frameAncestors: {
              type: 'array',
              maxItems: MAX_FRAME_ANCESTORS,
              items: { type: 'string', minLength: 1, maxLength: 300 },
            },
          },
        },
        response: { 200: settingsSchema },
      },
    },
    async (request, reply) => {
      const checked = checkOrigins(request.body.frameAncestors);
      if (checked.kind === 'invalid') {
        const detail = checked.errors.map((e) => `${e.path}: ${e.message}`).join('; ');
        throw new HttpProblem(400, 'invalid_frame_ancestor', 'Invalid frame ancestor', detail, {
          errors: checked.errors,
        });
      }
      const { tenant } = request;
      // Settings always exist (empty until set, with an ETag), so every write needs If-Match (428
      // without it), like every other update: the GET's ETag, or `*`.
      const tx = txOf(request);
      const row = await data.settings(tx, { tenant });
      const out = await conditionalUpdate(request, reply, {
        current: { version: row?.version ?? 0 },
        update: (ifVersion) =>
          data.putSettings(tx, {
            tenant,
            frameAncestors: checked.origins,
            ifVersion,
            at: new Date(options.now()).toISOString(),
          }),
        versionOf: (written) => ({ version: written.version }),
      });
      if (out.kind === 'stopped') return out.payload;
      return presentSettings(out.row);
    },
  );
};
