import { isDeepStrictEqual } from 'node:util';
import { isEventType } from '@surety/core';
import { keysetCursor, type Queryable } from '@surety/db';
import type { JsonSchema } from '@surety/events';
import { txOf } from '@surety/idempotency/fastify';
import type { FastifyPluginAsync } from 'fastify';
import { conditionalUpdate, currentState, sendValidators } from '../conditional-update.js';
import { type EventTypeRow, eventTypeData } from '../data/event-types.js';
import { breakingChanges, type Compatibility } from '../event-types/compatibility.js';
import { HttpProblem, notFound } from '../problem.js';
import { routePreconditions } from '../route-config.js';
import {
  createBody,
  eventTypeSchema,
  nameParam,
  patchBody,
  presentServiceType,
  presentTenantType,
} from './event-type-schemas.js';
import { listOf, listQuery } from './schemas.js';

/** Most event types one tenant may register (each is compiled, and all are in its AsyncAPI document). */
export const MAX_EVENT_TYPES_PER_TENANT = 200;
/** Most schemas one type may have had: each new one is checked against all since the mode was set. */
export const MAX_SCHEMA_VERSIONS = 100;

const BY_NAME = keysetCursor('text');

export interface EventTypeRoutesOptions {
  /** The PostgreSQL schema of the service's tables. */
  schema: string;
}

interface Editable {
  description?: string;
  schema?: JsonSchema;
  examples?: unknown[];
  compatibility?: Compatibility;
  deprecated?: boolean;
}

/**
 * Event types: the service's own (read-only) and the tenant's (create, update with If-Match,
 * deprecate), each tenant schema checked for compatibility under its mode. Registered with a
 * prefix: `app.register(eventTypeRoutes, { prefix: '/v1/event-types', schema })`.
 */
export const eventTypeRoutes: FastifyPluginAsync<EventTypeRoutesOptions> = async (app, options) => {
  const data = eventTypeData(options.schema);
  const serviceTypes = app.events;
  const serviceType = (name: string) =>
    new HttpProblem(
      403,
      'service_event_type',
      'Service event type',
      `${name} is one of the service's own event types: it cannot be changed.`,
    );

  app.post<{ Body: Required<Omit<Editable, 'deprecated' | 'compatibility'>> & Editable & { name: string } }>(
    '',
    {
      config: {
        idempotency: { required: false },
        sends: ['location', 'etag'],
        problems: [
          'event_type_exists',
          'event_type_limit_reached',
          'invalid_event_schema',
          'invalid_event_example',
          'schema_too_costly',
          'validation_busy',
        ],
      },
      schema: {
        operationId: 'createEventType',
        summary: 'Register an event type with its JSON Schema and examples',
        description:
          "Registers one of your event types: its name (not one of the service's), a JSON Schema " +
          '(draft-07) of `data`, examples that must validate, and a compatibility mode for later ' +
          'changes. Events of the type are validated against the schema when published.',
        tags: ['event-types'],
        body: createBody,
        response: { 201: eventTypeSchema },
      },
    },
    async (request, reply) => {
      const { tenant } = request;
      const { name, description, schema, examples, compatibility = 'full' } = request.body;
      const taken = () =>
        new HttpProblem(
          409,
          'event_type_exists',
          'Event type exists',
          `The event type ${name} exists already.`,
        );
      if (serviceTypes.has(name)) throw taken();
      const tx = txOf(request);
      if (await data.get(tx, { tenant, name })) throw taken();
      await app.eventTypes.compile(tenant, { name, description, schema, examples });
      const row = await data.insert(tx, {
        tenant,
        name,
        fields: { description, schema, examples, compatibility, deprecated: false },
        now: new Date().toISOString(),
        maxTypes: MAX_EVENT_TYPES_PER_TENANT,
      });
      if (row === 'taken') throw taken(); // created concurrently since our read
      if (row === 'limit') {
        throw new HttpProblem(
          409,
          'event_type_limit_reached',
          'Event type limit reached',
          `This tenant has ${MAX_EVENT_TYPES_PER_TENANT} event types, the most allowed.`,
          { limit: MAX_EVENT_TYPES_PER_TENANT },
        );
      }
      reply.code(201).header('location', `/v1/event-types/${name}`);
      sendValidators(reply, { version: row.version });
      return presentTenantType(row);
    },
  );

  app.get<{ Querystring: { limit?: number; cursor?: string } }>(
    '',
    {
      config: { portal: 'read' },
      schema: {
        operationId: 'listEventTypes',
        summary: "List event types: the service's and yours",
        description:
          "Pages through the service's event types and yours together, by name. `owner` says whose a type " +
          'is; `reserved` marks the operational types only the service publishes.',
        tags: ['event-types'],
        querystring: listQuery(),
        response: { 200: listOf(eventTypeSchema) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? 20;
      const after = request.query.cursor === undefined ? null : BY_NAME.decode(request.query.cursor)[0];
      // The cursor is a name this list returned: anything else was not made here.
      if (after !== null && !isEventType(after)) {
        throw new HttpProblem(
          400,
          'invalid_cursor',
          'Invalid cursor',
          'The cursor is not one this API returned.',
        );
      }
      const own = await data.list(app.reads, { tenant: request.tenant, after, limit: limit + 1 });
      const merged = [
        ...serviceTypes
          .list()
          .filter((e) => after === null || e.type > after)
          .map((e) => ({ name: e.type, item: presentServiceType(e) })),
        ...own.map((r) => ({ name: r.name, item: presentTenantType(r) })),
      ]
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .slice(0, limit + 1);
      const hasMore = merged.length > limit;
      const page = merged.slice(0, limit);
      return {
        object: 'list',
        data: page.map((x) => x.item),
        hasMore,
        nextCursor: hasMore ? BY_NAME.encode([page[page.length - 1]!.name]) : null,
      };
    },
  );

  app.get<{ Params: { name: string } }>(
    '/:name',
    {
      // The portal's catalogue: a customer reads the types it can subscribe to.
      config: { precondition: 'read', sends: ['etag'], portal: 'read' },
      schema: {
        operationId: 'getEventType',
        summary: 'Retrieve an event type',
        description: "Answers one event type, the service's or yours, with its schema, examples and ETag.",
        tags: ['event-types'],
        params: nameParam,
        response: { 200: eventTypeSchema },
      },
    },
    async (request, reply) => {
      const { name } = request.params;
      const service = serviceTypes.get(name);
      const row = service ? undefined : await data.get(app.sql, { tenant: request.tenant, name });
      if (!service && !row) throw notFound('event type');
      const version = service ? service.version : row!.version;
      const check = routePreconditions(request, reply, currentState({ version }));
      if (!check.proceed) return reply.send(check.payload);
      sendValidators(reply, { version });
      return service ? presentServiceType(service) : presentTenantType(row!);
    },
  );

  /**
   * A tenant type's fields after `body`, checked once the preconditions hold: the schema compiles, it
   * is within the version limit and compatible with every schema since its mode was set (409 otherwise).
   */
  async function planChange(tx: Queryable, tenant: string, row: EventTypeRow, body: Editable) {
    const { name } = row;
    const fields = {
      description: body.description ?? row.description,
      schema: body.schema ?? row.schema,
      examples: body.examples ?? row.examples,
      compatibility: body.compatibility ?? row.compatibility,
      deprecated: body.deprecated ?? row.deprecated,
    };
    const schemaChanged = body.schema !== undefined && !isDeepStrictEqual(body.schema, row.schema);
    // A new mode starts from the schema in force now: what was published before it was set is
    // judged by the mode it was published under.
    const modeChanged = fields.compatibility !== row.compatibility;
    const checkedFrom = modeChanged
      ? await data.currentSchemaVersion(tx, { tenant, name })
      : row.checked_from;
    if (schemaChanged || body.examples !== undefined) {
      await app.eventTypes.compile(tenant, { name, ...fields }, { trusted: !schemaChanged });
    }
    if (schemaChanged) {
      if ((await data.schemaCount(tx, { tenant, name })) >= MAX_SCHEMA_VERSIONS) {
        throw new HttpProblem(
          409,
          'schema_version_limit',
          'Schema version limit',
          `${name} has had ${MAX_SCHEMA_VERSIONS} schemas, the most allowed: register a new name.`,
        );
      }
      const earlier = await data.schemasSince(tx, { tenant, name, from: checkedFrom });
      const changes = breakingChanges(fields.compatibility, earlier, fields.schema);
      if (changes.length > 0) {
        throw new HttpProblem(
          409,
          'breaking_change',
          'Breaking change',
          `The new schema of ${name} is incompatible under its ${fields.compatibility} mode: ` +
            `${changes
              .slice(0, 3)
              .map((c) => c.message)
              .join('; ')}. Register a new name (such as ${name}.v2) instead.`,
          { compatibility: fields.compatibility, changes },
        );
      }
    }
    return { fields, checkedFrom, schemaChanged };
  }

  app.patch<{ Params: { name: string }; Body: Editable }>(
    '/:name',
    {
      config: {
        idempotency: { required: false },
        precondition: 'required',
        sends: ['etag'],
        problems: [
          'service_event_type',
          'breaking_change',
          'schema_version_limit',
          'invalid_event_schema',
          'invalid_event_example',
          'schema_too_costly',
          'validation_busy',
        ],
      },
      schema: {
        operationId: 'updateEventType',
        summary: 'Update one of your event types; If-Match required',
        description:
          'Changes the description, examples, compatibility mode or schema, or deprecates the type. A ' +
          "new schema is checked against every schema since the mode was set, under the type's mode: " +
          'an incompatible one is a 409 `breaking_change` listing the changes (publish a new name ' +
          "instead, such as order.shipped.v2). The service's own types cannot be changed (403).",
        tags: ['event-types'],
        params: nameParam,
        body: patchBody,
        response: { 200: eventTypeSchema },
      },
    },
    async (request, reply) => {
      const { tenant } = request;
      const { name } = request.params;
      if (serviceTypes.has(name)) throw serviceType(name);
      const tx = txOf(request);
      const row = await data.get(tx, { tenant, name });
      if (!row) throw notFound('event type');
      const out = await conditionalUpdate(request, reply, {
        current: { version: row.version },
        update: async (ifVersion) => {
          const change = await planChange(tx, tenant, row, request.body);
          return data.update(tx, { tenant, name, ifVersion, ...change, now: new Date().toISOString() });
        },
        versionOf: (updated) => ({ version: updated.version }),
      });
      if (out.kind === 'stopped') return out.payload;
      return presentTenantType(out.row);
    },
  );
};
