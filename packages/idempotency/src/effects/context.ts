// What the outbox hands its workers (outbox.ts builds it, worker.ts reads it): its own module, so
// neither imports the other's file for a type.
import type { Sql } from '@surety/db';
import type { RetryBudget } from '@surety/fetch';
import type { EffectDefinition } from './define.js';
import type { EffectRetryOptions } from './policy.js';
import type { EffectStatements } from './statements.js';

export interface EffectsContext {
  sql: Sql;
  st: EffectStatements;
  byName: ReadonlyMap<string, EffectDefinition>;
  policy: (definition: EffectDefinition) => Required<EffectRetryOptions>;
  budgetOf: (name: string) => RetryBudget | undefined;
  now: () => number;
  random: () => number;
}
