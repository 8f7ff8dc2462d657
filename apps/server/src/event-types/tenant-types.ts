// Compiling a tenant's event types and validating their payloads at publish.
import type { Queryable } from '@surety/db';
import {
  createRegistry,
  type EventIssue,
  type EventRegistry,
  isEventError,
  type JsonSchema,
} from '@surety/events';
import { InvalidEventError } from '@surety/webhooks';
import { eventTypeData } from '../data/event-types.js';
import { HttpProblem } from '../problem.js';
import { untrustedSchemaIssues } from './untrusted-schema.js';
import { vouch } from './vouched.js';

/**
 * The service's operational events: it publishes them itself, about the webhook machinery
 * (`@surety/webhooks` disabling an endpoint, `POST /v1/webhook-endpoints/{id}/test`). A tenant
 * cannot publish them through `POST /v1/events` (403 `reserved_event_type`), so a receiver can
 * trust that one came from the service. The service's other types (payments, orders, inventory)
 * describe the tenant's own business and stay publishable.
 */
export const RESERVED_EVENT_TYPES: ReadonlySet<string> = new Set(['endpoint.disabled', 'webhook.test']);

/** What a tenant registers. */
export interface TypeDefinition {
  name: string;
  description: string;
  schema: JsonSchema;
  examples: unknown[];
}

/** The outcome of compiling a definition, tagged `kind`. */
export type Compiled =
  | { kind: 'compiled'; registry: EventRegistry }
  | { kind: 'invalid'; code: 'invalid_event_schema' | 'invalid_event_example'; errors: EventIssue[] };

/**
 * Checks and compiles a tenant's type: the schema against the untrusted-schema rules, then by the
 * same registry (ajv, draft-07, strict, objects closed) that validates the service's own types,
 * then every example against it.
 * @example
 * const c = compileType({ name: 'invoice.paid', description: 'Paid.', schema, examples: [{ id: 'inv_1' }] });
 */
export function compileType(def: TypeDefinition, options: { trusted?: boolean } = {}): Compiled {
  if (!options.trusted) {
    const issues = untrustedSchemaIssues(def.schema, '/schema');
    if (issues.length > 0) return { kind: 'invalid', code: 'invalid_event_schema', errors: issues };
  }
  const registry = createRegistry({ events: [], maxErrors: 20 });
  try {
    registry.register({
      type: def.name,
      description: def.description,
      schema: def.schema,
      sample: def.examples[0],
    });
  } catch (error) {
    if (!isEventError(error)) throw error;
    // Only a failing sample comes with issues; anything else is the schema (ajv's message).
    if (error.errors.length > 0) {
      return {
        kind: 'invalid',
        code: 'invalid_event_example',
        errors: error.errors.map((e) => ({ path: `/examples/0${e.path}`, message: e.message })),
      };
    }
    const message = error.message.replace(/^event type "[^"]*": /, '');
    return { kind: 'invalid', code: 'invalid_event_schema', errors: [{ path: '/schema', message }] };
  }
  const errors: EventIssue[] = [];
  def.examples.forEach((example, i) => {
    const r = registry.validate(def.name, example);
    if (r.kind === 'invalid') {
      for (const e of r.error.errors) errors.push({ path: `/examples/${i}${e.path}`, message: e.message });
    }
  });
  if (errors.length > 0) return { kind: 'invalid', code: 'invalid_event_example', errors };
  return { kind: 'compiled', registry };
}

/** The problem for a definition that did not compile. */
export const compileProblem = (c: Extract<Compiled, { kind: 'invalid' }>) =>
  new HttpProblem(
    422,
    c.code,
    c.code === 'invalid_event_schema' ? 'Invalid event schema' : 'Invalid example',
    c.errors
      .slice(0, 5)
      .map((e) => `${e.path}: ${e.message}`)
      .join('; '),
    { errors: c.errors.map((e) => ({ in: 'body', ...e })) },
  );

/**
 * The tenant types' compiled validators, each held for one (tenant, name, version): a PATCH makes
 * a new version, so a stale validator is never used, only evicted. Least recently used first out.
 */
export class TenantTypes {
  readonly #cache = new Map<string, EventRegistry>();
  readonly #data: ReturnType<typeof eventTypeData>;

  constructor(
    schema: string,
    /** Most compiled types held (each is an ajv instance). @default 500 */
    readonly maxCached = 500,
  ) {
    this.#data = eventTypeData(schema);
  }

  /** The compiled type of a stored row (compiled now when not held). */
  registryFor(tenant: string, row: TypeDefinition & { version: number }): EventRegistry {
    const key = `${tenant}\u0000${row.name}\u0000${row.version}`;
    const hit = this.#cache.get(key);
    if (hit) {
      this.#cache.delete(key);
      this.#cache.set(key, hit);
      return hit;
    }
    // Stored schemas passed the untrusted-schema rules when they were written.
    const compiled = compileType(row, { trusted: true });
    if (compiled.kind !== 'compiled') {
      throw new Error(`stored event type ${row.name} v${row.version} no longer compiles`);
    }
    this.#cache.set(key, compiled.registry);
    while (this.#cache.size > this.maxCached) this.#cache.delete(this.#cache.keys().next().value!);
    return compiled.registry;
  }

  /** The payload schema of the tenant's own type `name`, or undefined when it has no such type. */
  async schemaOf(
    q: Queryable,
    p: { tenant: string; name: string },
  ): Promise<TypeDefinition['schema'] | undefined> {
    return (await this.#data.get(q, p))?.schema;
  }

  /** How many compiled types are held (tests). */
  get size(): number {
    return this.#cache.size;
  }

  /**
   * Before `POST /v1/events` publishes: a reserved type is 403; a tenant type's payload is
   * validated here (422 `invalid_event`, the same shape as the service's types) and vouched for,
   * so the engine's validator lets it through; the service's types and unknown names are left to
   * the engine's validator, as before.
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
    const r = this.registryFor(p.tenant, row).validate(row.name, p.data);
    if (r.kind === 'invalid') throw new InvalidEventError(r.error.message, r.error.errors);
    vouch(p.type, p.data);
  }
}
