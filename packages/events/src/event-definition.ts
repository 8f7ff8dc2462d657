import type { EventError } from './errors.js';
import type { JsonSchema } from './json-schema.js';

/**
 * What `register()` takes: one event type and its contract.
 * @example
 * const def: EventDefinition = { type: 'invoice.paid', description: 'An invoice was paid.', schema, sample };
 */
export interface EventDefinition<T = unknown> {
  /** `noun.verb`, lower case: `order.shipped`. */
  type: string;
  /** Markdown; the first sentence is used as the summary. */
  description: string;
  /**
   * JSON Schema (draft-07, AsyncAPI 3.0's default format) of the envelope's `data`. Self-contained:
   * no `$ref` to other documents.
   */
  schema: JsonSchema;
  /** A realistic `data` value; it must validate, and it is the example in the AsyncAPI document. */
  sample: T;
  /**
   * The revision of this type's schema, shown in the catalogue and the AsyncAPI message
   * (`x-surety-version`). Informational: compatibility is decided by `diffContracts`.
   * @default 1
   */
  version?: number;
  /** Marks the type as on its way out (the AsyncAPI message gets `deprecated: true`). @default false */
  deprecated?: boolean;
  /**
   * An operational type, published only by the service about its own machinery (the AsyncAPI
   * message is tagged `reserved` and carries `x-surety-reserved: true`). @default false
   */
  reserved?: boolean;
}

/**
 * A registered type: the definition as given (deep-copied, frozen), with its defaults filled in.
 * @example
 * registry.get('order.shipped')?.sample
 */
export interface RegisteredEvent {
  readonly type: string;
  readonly description: string;
  readonly schema: Readonly<JsonSchema>;
  readonly sample: unknown;
  readonly version: number;
  readonly deprecated: boolean;
  /** Present and true for an operational type only the service publishes. */
  readonly reserved?: boolean;
}

/**
 * The outcome of a check, tagged `kind` (the discriminant): `valid`, or `invalid` with the error
 * that `assertValid` would throw. `ok` says the same (kept for existing callers).
 * @example
 * const r = registry.validate(type, data);
 * if (r.kind === 'invalid') console.log(r.error.errors);
 */
export type ValidationResult =
  | { kind: 'valid'; ok: true }
  | { kind: 'invalid'; ok: false; error: EventError };

/**
 * Options of `createRegistry()`.
 * @example
 * createRegistry({ events: [], closed: true, maxErrors: 20 });
 */
export interface RegistryOptions {
  /**
   * The types to start with (a service's catalogue).
   * @default [] (an empty registry; `register()` adds types)
   */
  events?: readonly EventDefinition[];
  /**
   * Reject fields a schema does not list (objects with `properties` and no `additionalProperties`
   * are validated as closed), so nothing undocumented reaches a customer. The published schemas stay
   * open either way. Say `additionalProperties: true` in a schema to allow extra keys there.
   * @default true
   */
  closed?: boolean;
  /** At most this many problems are reported per payload. @default 50 */
  maxErrors?: number;
  /**
   * Collect every problem of a payload (up to `maxErrors`), or stop at the first. Off for schemas
   * you do not write (a tenant's): collecting makes an error object per failing `anyOf`/`oneOf`
   * branch and data item, which an adversarial schema turns into gigabytes. @default true
   */
  allErrors?: boolean;
}
