// Compiling a tenant's event type: the untrusted-schema rules, the static cost bound, ajv. Pure (no
// database, no HTTP): it runs in the schema workers (schema-workers.ts), off the event loop.
import {
  createRegistry,
  type EventIssue,
  type EventRegistry,
  isEventError,
  type JsonSchema,
} from '@surety/events';
import { costIssues } from './schema-cost.js';
import { untrustedSchemaIssues } from './untrusted-schema.js';

/** What a tenant registers. */
export interface TypeDefinition {
  name: string;
  description: string;
  schema: JsonSchema;
  examples: unknown[];
}

/** Why a definition did not compile. */
export type CompileCode = 'invalid_event_schema' | 'invalid_event_example' | 'schema_too_costly';

/** The outcome of compiling a definition, tagged `kind`. */
export type Compiled =
  | { kind: 'compiled'; registry: EventRegistry }
  | { kind: 'invalid'; code: CompileCode; errors: EventIssue[] };

export interface CompileOptions {
  /** A stored schema: it passed the rules and the cost bound when it was written. */
  trusted?: boolean;
  /** The most JSON values a request body can hold (the cost model's data bound). */
  maxValues: number;
}

/**
 * Checks and compiles a tenant's type: the schema against the untrusted-schema rules and the cost
 * bound, then by a registry (ajv, draft-07, strict, objects closed; stopping at a payload's first
 * problem), then every example against it.
 * @example
 * const c = compileType({ name: 'invoice.paid', description: 'Paid.', schema, examples: [{ id: 'inv_1' }] }, { maxValues: 32_768 });
 */
export function compileType(def: TypeDefinition, options: CompileOptions): Compiled {
  if (!options.trusted) {
    const issues = untrustedSchemaIssues(def.schema, '/schema');
    if (issues.length > 0) return { kind: 'invalid', code: 'invalid_event_schema', errors: issues };
    const costly = costIssues(def.schema, options.maxValues, '/schema');
    if (costly.length > 0) return { kind: 'invalid', code: 'schema_too_costly', errors: costly };
  }
  const registry = createRegistry({ events: [], maxErrors: 20, allErrors: false });
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
