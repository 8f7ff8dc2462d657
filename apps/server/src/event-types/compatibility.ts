// The compatibility modes of a tenant's event type, as a schema registry has them, defined by which
// receivers keep working (docs/event-types.md). The changes themselves are found by @surety/events'
// checker; a mode only says which of them it refuses.
import type { ChangeKind, ContractChange, JsonSchema } from '@surety/events';
import { diffSchemas } from './diff.js';

export const COMPATIBILITY_MODES = ['full', 'backward', 'forward', 'none'] as const;
export type Compatibility = (typeof COMPATIBILITY_MODES)[number];

/**
 * Which receivers a change breaks:
 * - `backward`: a receiver written for the new schema, handed an event published under an earlier
 *   one (retried or replayed for days): a new required field, a narrowed enum, a tightened
 *   constraint break it.
 * - `forward`: a receiver still written for an earlier schema, handed an event of the new one (it
 *   ignores fields and enum values it does not know): a removed field, or a field that may now be
 *   missing, breaks it.
 * A type change, a rename and a change the checker cannot prove safe break both.
 */
const BREAKS: Record<ChangeKind, { backward: boolean; forward: boolean }> = {
  'event-type-removed': { backward: true, forward: true },
  'event-type-added': { backward: false, forward: false },
  'field-removed': { backward: false, forward: true },
  'field-renamed': { backward: true, forward: true },
  'type-changed': { backward: true, forward: true },
  'required-field-added': { backward: true, forward: false },
  'optional-field-added': { backward: false, forward: false },
  'field-now-required': { backward: true, forward: false },
  'field-now-optional': { backward: false, forward: true },
  'enum-narrowed': { backward: true, forward: false },
  'enum-widened': { backward: false, forward: false },
  'constraint-tightened': { backward: true, forward: false },
  'constraint-loosened': { backward: false, forward: false },
  'schema-changed': { backward: true, forward: true },
  deprecated: { backward: false, forward: false },
};

/** Whether `mode` refuses the change. `full` refuses exactly what the checker calls breaking. */
export function refuses(mode: Compatibility, change: ContractChange): boolean {
  const b = BREAKS[change.kind];
  switch (mode) {
    case 'full':
      return b.backward || b.forward || change.breaking;
    case 'backward':
      return b.backward;
    case 'forward':
      return b.forward;
    case 'none':
      return false;
  }
}

/** One refused change, as the 409 answer lists it. */
export interface RefusedChange {
  kind: ChangeKind;
  path: string;
  message: string;
  /** The earlier version of the schema it was found against. */
  againstVersion: number;
}

/**
 * The changes from each earlier schema to `next` that `mode` refuses (transitive: every version
 * since the mode was set, not only the last one), without repeats.
 * @example
 * breakingChanges('full', [{ version: 1, schema: v1 }], v2); // [] for an additive change
 */
export function breakingChanges(
  mode: Compatibility,
  earlier: readonly { version: number; schema: JsonSchema }[],
  next: JsonSchema,
): RefusedChange[] {
  if (mode === 'none') return [];
  const out: RefusedChange[] = [];
  const seen = new Set<string>();
  for (const e of earlier) {
    for (const c of diffSchemas(e.schema, next)) {
      if (!refuses(mode, c)) continue;
      const key = `${c.kind}\u0000${c.path}\u0000${c.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ kind: c.kind, path: c.path, message: c.message, againstVersion: e.version });
    }
  }
  return out;
}
