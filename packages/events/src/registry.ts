import { isEventType } from '@surety/core';
import type { ValidateFunction } from 'ajv';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { closeObjects } from './closed-objects.js';
import { EventError, type EventIssue } from './errors.js';
import type {
  EventDefinition,
  RegisteredEvent,
  RegistryOptions,
  ValidationResult,
} from './event-definition.js';
import { toIssues } from './issues.js';
import { cloneJson, isObject, type JsonSchema } from './json-schema.js';

// ajv-formats is CommonJS with `exports.default`; under NodeNext its default import is the module.
const addFormats = addFormatsModule.default;

/** Deep-freezes JSON data so that registered schemas and samples cannot change under the validators. */
function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

/**
 * The event-type registry: each type's JSON Schema compiled once, at registration.
 * Holds state (compiled validators), hence a class; create one with `createRegistry()`.
 * Not shared between processes: types registered at runtime must be registered again (from
 * storage) in every process that publishes them.
 * @example
 * const registry = createRegistry({ events: catalogue });
 * registry.assertValid('order.shipped', data);
 */
export class EventRegistry {
  readonly #ajv: Ajv;
  readonly #types = new Map<string, { def: RegisteredEvent; validate: ValidateFunction }>();
  readonly #closed: boolean;
  readonly #maxErrors: number;

  constructor(options: RegistryOptions = {}) {
    this.#closed = options.closed ?? true;
    this.#maxErrors = options.maxErrors ?? 50;
    // strict: unknown keywords and ambiguous schemas are definition errors, not silently ignored.
    // allowUnionTypes: `type: ["string", "null"]` is how nullable fields are written in draft-07.
    this.#ajv = new Ajv({
      allErrors: options.allErrors ?? true,
      strict: true,
      allowUnionTypes: true,
      validateSchema: true,
    });
    addFormats(this.#ajv, ['date-time', 'date', 'time', 'email', 'uri', 'uuid']);
    for (const def of options.events ?? []) this.register(def);
  }

  /**
   * Adds an event type. Throws EventError `SURETY_EVENT_INVALID_DEFINITION` for a bad name, a schema
   * ajv cannot compile, or a sample that fails its own schema (then, and only then, `errors` lists
   * where the sample failed), and `SURETY_EVENT_DUPLICATE_TYPE` when the type exists. Custom types published through `POST /v1/events` must be registered first.
   * @example
   * registry.register({
   *   type: 'invoice.paid',
   *   description: 'An invoice was paid in full.',
   *   schema: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
   *   sample: { id: 'inv_1' },
   * });
   */
  register<T>(definition: EventDefinition<T>): this {
    const { type, description, schema, sample } = definition;
    const bad = (message: string, cause?: unknown, errors: EventIssue[] = []) =>
      new EventError(
        'SURETY_EVENT_INVALID_DEFINITION',
        `event type ${JSON.stringify(type)}: ${message}`,
        errors,
        {
          cause,
        },
      );
    if (!isEventType(type)) {
      throw bad(
        'the name must look like "order.shipped" (lower case, dot separated, at most 100 characters)',
      );
    }
    if (this.#types.has(type)) {
      throw new EventError(
        'SURETY_EVENT_DUPLICATE_TYPE',
        `event type ${JSON.stringify(type)} is already registered`,
      );
    }
    if (typeof description !== 'string' || description.trim() === '') throw bad('a description is required');
    if (!isObject(schema)) throw bad('the schema must be a JSON Schema object');
    const version = definition.version ?? 1;
    if (!Number.isInteger(version) || version < 1) throw bad('version must be an integer ≥ 1');
    let copy: JsonSchema;
    let sampleCopy: unknown;
    try {
      copy = cloneJson(schema);
      sampleCopy = cloneJson(sample);
    } catch (e) {
      throw bad('schema and sample must be plain JSON data', e);
    }
    if (JSON.stringify(copy).includes('"$ref"')) throw bad('the schema must be self-contained (no $ref)');
    let validate: ValidateFunction;
    try {
      validate = this.#ajv.compile(this.#closed ? closeObjects(copy) : copy);
    } catch (e) {
      throw bad(`the schema does not compile: ${(e as Error).message}`, e);
    }
    if (!validate(sampleCopy)) {
      const issues = toIssues(validate.errors, this.#maxErrors);
      // The issues travel in `errors` (pointers into the sample): only a failing sample has any.
      throw bad(
        `the sample fails the schema: ${issues.map((i) => `${i.path || '(data)'} ${i.message}`).join('; ')}`,
        undefined,
        issues,
      );
    }
    const def: RegisteredEvent = deepFreeze({
      type,
      description: description.trim(),
      schema: copy,
      sample: sampleCopy,
      version,
      deprecated: definition.deprecated ?? false,
      ...(definition.reserved ? { reserved: true } : {}),
    });
    this.#types.set(type, { def, validate });
    return this;
  }

  /** Whether `type` is registered. @example registry.has('order.shipped') // true */
  has(type: string): boolean {
    return this.#types.has(type);
  }

  /** The registered definition, or undefined. @example registry.get('order.shipped')?.schema */
  get(type: string): RegisteredEvent | undefined {
    return this.#types.get(type)?.def;
  }

  /** Every registered type, sorted by name (so documents built from it are stable). @example registry.list().map((e) => e.type) */
  list(): RegisteredEvent[] {
    return [...this.#types.values()]
      .map((t) => t.def)
      .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  }

  /**
   * Checks `data` against the type's schema without throwing.
   * @example
   * const r = registry.validate('order.shipped', body.data);
   * if (!r.ok) return problem(422, r.error.code, r.error.errors);
   */
  validate(type: string, data: unknown): ValidationResult {
    const entry = this.#types.get(type);
    if (entry === undefined) {
      return {
        kind: 'invalid',
        ok: false,
        error: new EventError(
          'SURETY_EVENT_UNKNOWN_TYPE',
          `unknown event type ${JSON.stringify(type)}: register it before publishing`,
        ),
      };
    }
    if (entry.validate(data)) return { kind: 'valid', ok: true };
    const errors = toIssues(entry.validate.errors, this.#maxErrors);
    const first = errors[0];
    const summary = first === undefined ? '' : `: ${first.path || '(data)'} ${first.message}`;
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
    return {
      kind: 'invalid',
      ok: false,
      error: new EventError(
        'SURETY_EVENT_INVALID_PAYLOAD',
        `invalid ${type} payload${summary}${more}`,
        errors,
      ),
    };
  }

  /**
   * Throws EventError (`SURETY_EVENT_UNKNOWN_TYPE` / `SURETY_EVENT_INVALID_PAYLOAD`, with `errors`)
   * unless `data` is valid. An arrow property, so it can be passed around unbound: it has exactly
   * the shape of `@surety/webhooks`' `validate` option.
   * @example
   * const webhooks = new Webhooks({ sql, validate: registry.assertValid });
   */
  readonly assertValid = (type: string, data: unknown): void => {
    const r = this.validate(type, data);
    if (!r.ok) throw r.error;
  };
}

/**
 * A registry holding the events you pass (none by default), ready to validate.
 * @example
 * const registry = createRegistry({ events: catalogue }); // your service's events
 * const empty = createRegistry();                         // start from nothing
 * registry.register({ type: 'invoice.paid', description: '…', schema, sample });
 */
export function createRegistry(options?: RegistryOptions): EventRegistry {
  return new EventRegistry(options);
}

/**
 * `registry.validate(type, data)` as a function.
 * @example
 * const r = validateEvent(registry, 'order.shipped', data);
 */
export function validateEvent(registry: EventRegistry, type: string, data: unknown): ValidationResult {
  return registry.validate(type, data);
}

/**
 * The `(type, data) => void` checker for `@surety/webhooks`' publish: throws EventError with
 * `errors: { path, message }[]` (pointers relative to `data`) on an unknown type or invalid data.
 * @example
 * const webhooks = new Webhooks({ sql, validate: publishValidator(createRegistry({ events })) });
 */
export function publishValidator(registry: EventRegistry): (type: string, data: unknown) => void {
  return registry.assertValid;
}
