import { versionETag } from '@surety/conditional';
import type { Queryable } from '@surety/db';
import { txOf } from '@surety/idempotency/fastify';
import { type Application, ApplicationNotFoundError, isApplicationUidTakenError } from '@surety/webhooks';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { conditionalDelete, conditionalUpdate } from '../conditional-update.js';
import type { PortalData } from '../data/portal.js';
import { applicationUidTaken, HttpProblem } from '../problem.js';
import { routePreconditions } from '../route-config.js';
import {
  APPLICATION_REF,
  applicationFields,
  applicationSchema,
  presentApplication as present,
} from './application-schemas.js';
import { idParam, listOf, listQuery } from './schemas.js';

type Editable = { uid?: string | null; name?: string; metadata?: Record<string, string> };

/** 422 for a uid that looks like an id: `app_` is the prefix of ids, so a reference is one or the other. */
function refuseReservedUid(uid: string | null | undefined): void {
  if (typeof uid === 'string' && uid.startsWith('app_')) {
    throw new HttpProblem(
      422,
      'application_uid_reserved',
      'Reserved uid',
      'A uid may not start with app_, the prefix of application ids.',
      { errors: [{ in: 'body', path: '/uid', message: 'may not start with app_' }] },
    );
  }
}

/**
 * Applications, the tenant's customers with endpoints of their own (docs/applications.md): create,
 * list, retrieve, update, delete, by id or uid. Registered with a prefix:
 * `app.register(applicationRoutes, { prefix: '/v1/applications' })`.
 */
export const applicationRoutes: FastifyPluginAsync<{ portal: PortalData; now: () => number }> = async (
  app,
  { portal, now },
) => {
  const w = app.webhooks;
  const params = { params: idParam(APPLICATION_REF) };
  /** The tenant's application named by the path (id or uid); 404 when missing. */
  async function find(
    q: Queryable,
    request: FastifyRequest<{ Params: { id: string } }>,
  ): Promise<Application> {
    const found = await w.getApplication(q, { tenant: request.tenant, id: request.params.id });
    if (!found) throw new ApplicationNotFoundError();
    return found;
  }
  /** …with its ETag set on the reply. */
  async function load(
    q: Queryable,
    request: FastifyRequest<{ Params: { id: string } }>,
    reply: FastifyReply,
  ) {
    const found = await find(q, request);
    reply.header('etag', versionETag(found.version));
    return found;
  }

  app.post<{ Body: Editable & { name: string } }>(
    '',
    {
      config: {
        idempotency: { required: false },
        sends: ['location', 'etag'],
        problems: ['application_uid_taken', 'application_uid_reserved'],
      },
      schema: {
        operationId: 'createApplication',
        summary: 'Create an application (one of your customers, with endpoints of its own)',
        description:
          'Creates an application. Endpoints created with its `applicationId` receive only the events ' +
          'published with its `application`; events published without one reach only your endpoints ' +
          'of no application.',
        tags: ['applications'],
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['name'],
          properties: applicationFields,
        },
        response: { 201: applicationSchema },
      },
    },
    async (request, reply) => {
      const { uid, name, metadata } = request.body;
      refuseReservedUid(uid);
      const created = await w
        .createApplication(txOf(request), { tenant: request.tenant, uid, name, metadata })
        .catch((error: unknown) => {
          // The engine's refusal leaves the transaction usable: the 409 is stored with the key.
          throw isApplicationUidTakenError(error) ? applicationUidTaken(error.uid) : error;
        });
      reply
        .code(201)
        .header('location', `/v1/applications/${created.id}`)
        .header('etag', versionETag(created.version));
      return present(created);
    },
  );

  app.get<{ Querystring: { limit?: number; cursor?: string } }>(
    '',
    {
      schema: {
        operationId: 'listApplications',
        summary: 'List applications',
        description: 'Pages through your applications, newest first.',
        tags: ['applications'],
        querystring: listQuery(),
        response: { 200: listOf(applicationSchema) },
      },
    },
    async (request) => {
      const page = await w.listApplications(app.reads, { ...request.query, tenant: request.tenant });
      return { object: 'list', ...page, data: page.data.map(present) };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/:id',
    {
      config: { precondition: 'read', sends: ['etag'] },
      schema: {
        operationId: 'getApplication',
        summary: 'Retrieve an application by id or uid',
        description: 'Answers the application with its ETag for a later PATCH or DELETE.',
        tags: ['applications'],
        ...params,
        response: { 200: applicationSchema },
      },
    },
    async (request, reply) => {
      const found = await load(app.sql, request, reply);
      const check = routePreconditions(request, reply, { exists: true, etag: versionETag(found.version) });
      if (!check.proceed) return reply.send(check.payload);
      return present(found);
    },
  );

  app.patch<{ Params: { id: string }; Body: Editable }>(
    '/:id',
    {
      config: {
        idempotency: { required: false },
        precondition: 'required',
        sends: ['etag'],
        problems: ['application_uid_taken', 'application_uid_reserved'],
      },
      schema: {
        operationId: 'updateApplication',
        summary: 'Update an application; If-Match required',
        description:
          'Changes the fields sent on the version named by If-Match: `metadata` replaces the whole ' +
          'object, `uid: null` removes the uid.',
        tags: ['applications'],
        ...params,
        body: {
          type: 'object',
          additionalProperties: false,
          minProperties: 1,
          properties: applicationFields,
        },
        response: { 200: applicationSchema },
      },
    },
    async (request, reply) => {
      refuseReservedUid(request.body.uid);
      const current = await load(txOf(request), request, reply);
      const out = await conditionalUpdate(request, reply, {
        current: { version: current.version },
        // A uid taken by another request committed meanwhile fails the statement (the transaction
        // rolls back): problem.ts answers that 409 unstored, and a retry with the key runs again.
        update: (ifVersion) =>
          w.updateApplication(txOf(request), {
            tenant: request.tenant,
            id: current.id,
            ifVersion,
            patch: request.body,
          }),
        versionOf: (updated) => ({ version: updated.version }),
      });
      if (out.kind === 'stopped') return out.payload;
      return present(out.row);
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/:id',
    {
      // DELETE is idempotent by its nature: deleting again is a 404 and changes nothing.
      config: { idempotency: false, precondition: 'optional' },
      schema: {
        operationId: 'deleteApplication',
        summary: 'Delete an application and its endpoints (If-Match honoured)',
        description:
          'Deletes the application and each of its endpoints, whose queued deliveries fail with ' +
          '`endpoint_deleted`, as deleting each endpoint would. Its events stay until retention. With ' +
          'If-Match, only the version named is deleted (412 otherwise).',
        tags: ['applications'],
        ...params,
        response: { 204: { description: 'Deleted', type: 'null' } },
      },
    },
    async (request, reply) => {
      const found = await find(app.sql, request);
      const out = await conditionalDelete(request, reply, {
        current: { version: found.version },
        // The version the precondition passed on is the one deleted (as for endpoints).
        remove: (ifVersion) =>
          app.sql.transaction(async (tx) => {
            const done = await w.deleteApplication(tx, { tenant: request.tenant, id: found.id, ifVersion });
            // Its customer's portal sessions end with it, in the same transaction.
            if (done)
              await portal.revokeApplicationSessions(tx, {
                tenant: request.tenant,
                applicationId: found.id,
                at: new Date(now()).toISOString(),
              });
            return done;
          }),
      });
      if (out.kind === 'stopped') return reply.send(out.payload);
      return reply.code(204).send();
    },
  );
};
