// A tenant's event types: compiled, and their payloads validated at publish, in the schema workers
// (schema-workers.ts), never on the event loop (issue 30, N1).
import type { Queryable } from '@surety/db';
import type { EventRegistry } from '@surety/events';
import { InvalidEventError, OPERATIONAL_EVENT_TYPES } from '@surety/webhooks';
import { eventTypeData } from '../data/event-types.js';
import { HttpProblem } from '../problem.js';
import type { CompileCode, TypeDefinition } from './compile-type.js';
import {
  SchemaTooCostlyError,
  SchemaWorkers,
  SchemaWorkersBusyError,
  type SchemaWorkersOptions,
  type WorkerReply,
  type WorkerTask,
} from './schema-workers.js';
import { vouch } from './vouched.js';

export type { TypeDefinition } from './compile-type.js';

/**
 * The service's operational events: it publishes them itself, about the webhook machinery
 * (`@surety/webhooks`' OPERATIONAL_EVENT_TYPES: an endpoint disabled, its breaker opened or closed,
 * its backlog over the threshold, a delivery failed for good, a secret expiring;
 * `POST /v1/webhook-endpoints/{id}/test`). A tenant
 * cannot publish them through `POST /v1/events` (403 `reserved_event_type`), so a receiver can
 * trust that one came from the service. The service's other types (payments, orders, inventory)
 * describe the tenant's own business and stay publishable.
 */
export const RESERVED_EVENT_TYPES: ReadonlySet<string> = new Set([
  ...OPERATIONAL_EVENT_TYPES,
  'webhook.test',
]);

const TITLES: Record<CompileCode, string> = {
  invalid_event_schema: 'Invalid event schema',
  invalid_event_example: 'Invalid example',
  schema_too_costly: 'Schema too costly',
};

/** The problem for a definition that did not compile. */
export const compileProblem = (c: Extract<WorkerReply, { kind: 'invalid' }>) =>
  new HttpProblem(
    422,
    c.code,
    TITLES[c.code],
    c.errors
      .slice(0, 5)
      .map((e) => `${e.path}: ${e.message}`)
      .join('; '),
    { errors: c.errors.map((e) => ({ in: 'body', ...e })) },
  );

/** The problem for a worker task past its limits, or a tenant with too many waiting. */
function workerProblem(error: unknown): unknown {
  if (error instanceof SchemaTooCostlyError) {
    // Not the key's final answer: a retry runs again (a busy machine may have slowed it).
    return new HttpProblem(
      422,
      'schema_too_costly',
      'Schema too costly',
      `${error.message}: nothing was changed.`,
      { limit: error.limit },
      {},
      false,
    );
  }
  if (error instanceof SchemaWorkersBusyError) {
    return new HttpProblem(
      503,
      'validation_busy',
      'Validation busy',
      `${error.message}: retry after Retry-After seconds.`,
      {},
      { 'retry-after': '1' },
    );
  }
  return error;
}

/**
 * The tenant types' compile and validate, in the schema workers; each worker holds compiled
 * validators per (tenant, name, version): a PATCH makes a new version, so a stale one is never used.
 */
export class TenantTypes {
  readonly #data: ReturnType<typeof eventTypeData>;
  readonly workers: SchemaWorkers;

  constructor(schema: string, options: SchemaWorkersOptions) {
    this.#data = eventTypeData(schema);
    this.workers = new SchemaWorkers(options);
  }

  /** Outcomes of prechecks, by the payload they checked, for checkPublishable. */
  readonly #prechecked = new WeakMap<object, { type: string; version: number; outcome: unknown }>();

  async #run(tenant: string, task: WorkerTask): Promise<WorkerReply> {
    const reply = await this.workers.run(tenant, task).catch((error: unknown) => {
      throw workerProblem(error);
    });
    if (reply.kind === 'failed') throw new Error(reply.message);
    return reply;
  }

  /**
   * Checks and compiles a definition (the untrusted-schema rules and the cost bound unless
   * `trusted`, then ajv, then the examples); throws the 422 when it does not compile.
   */
  async compile(tenant: string, def: TypeDefinition, options: { trusted?: boolean } = {}): Promise<void> {
    const reply = await this.#run(tenant, { op: 'compile', def, trusted: options.trusted ?? false });
    if (reply.kind === 'invalid') throw compileProblem(reply);
  }

  /**
   * Validates a tenant type's payload before the request's transaction opens (`POST /v1/events`'
   * preHandler): nothing is answered here, the outcome is kept for checkPublishable, which answers
   * it inside the transaction (so a replayed key still gets its stored answer).
   */
  async precheck(q: Queryable, p: { tenant: string; type: string; data: object }): Promise<void> {
    if (RESERVED_EVENT_TYPES.has(p.type) || typeof p.data !== 'object' || p.data === null) return;
    const row = await this.#data.get(q, { tenant: p.tenant, name: p.type });
    if (!row) return;
    const outcome = await this.#validate(p.tenant, row, p.data).then(
      () => 'valid',
      (error: unknown) => error,
    );
    this.#prechecked.set(p.data, { type: p.type, version: row.version, outcome });
  }

  async #validate(tenant: string, row: TypeDefinition & { version: number }, data: object): Promise<void> {
    const { name, description, schema, examples, version } = row;
    const reply = await this.#run(tenant, {
      op: 'validate',
      key: `${tenant}\u0000${name}\u0000${version}`,
      def: { name, description, schema, examples },
      data,
    });
    if (reply.kind === 'invalid-data') throw new InvalidEventError(reply.message, reply.errors);
  }

  /**
   * Before `POST /v1/events` publishes: a reserved type is 403; a tenant type's payload is
   * validated (422 `invalid_event`, the same shape as the service's types) and vouched for, so the
   * engine's validator lets it through; the service's types and unknown names are left to the
   * engine's validator, as before. The precheck's outcome is used when the type is still at the
   * version it checked.
   */
  async checkPublishable(
    q: Queryable,
    p: { tenant: string; type: string; data: object; serviceTypes: EventRegistry },
  ) {
    if (RESERVED_EVENT_TYPES.has(p.type)) {
      throw new HttpProblem(
        403,
        'reserved_event_type',
        'Reserved event type',
        `${p.type} is one of the service's operational events: only the service publishes it.`,
      );
    }
    if (p.serviceTypes.has(p.type)) return;
    const row = await this.#data.get(q, { tenant: p.tenant, name: p.type });
    if (!row) return;
    const pre = this.#prechecked.get(p.data);
    if (pre && pre.type === p.type && pre.version === row.version) {
      if (pre.outcome !== 'valid') throw pre.outcome;
    } else {
      await this.#validate(p.tenant, row, p.data);
    }
    vouch(p.type, p.data);
  }

  /** The payload schema of the tenant's own type `name`, or undefined when it has no such type. */
  async schemaOf(
    q: Queryable,
    p: { tenant: string; name: string },
  ): Promise<TypeDefinition['schema'] | undefined> {
    return (await this.#data.get(q, p))?.schema;
  }

  close(): Promise<void> {
    return this.workers.close();
  }
}
