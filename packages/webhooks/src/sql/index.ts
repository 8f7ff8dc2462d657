// The package's SQL: one home, each statement beside the typed function that owns its values.
// Internal: nothing here is exported from the package (the `testing` subpath re-exports what tests need).
import { claimStatements } from './claim.js';
import { completeStatements } from './complete.js';
import { healthStatements } from './health.js';
import { operationalStatements } from './operational.js';
import { publishStatements } from './publish.js';
import { releaseStatements } from './releases.js';
import { names } from './schema.js';
import { throttleStatements } from './throttle.js';
import { tokenStatements } from './tokens.js';

/** Every prepared statement of one schema, and its table names. Every value is a bound parameter. */
export function statements(schema: string) {
  const n = names(schema);
  return {
    tables: {
      EP: n.EP,
      EV: n.EV,
      D: n.D,
      A: n.A,
      WS: n.WS,
      T: n.T,
      AP: n.AP,
      K: n.K,
      P: n.P,
      qs: n.qs,
      schema: n.schema,
    },
    ...publishStatements(n),
    ...claimStatements(n),
    ...tokenStatements(n),
    ...completeStatements(n),
    ...healthStatements(n),
    ...releaseStatements(n),
    ...throttleStatements(n),
    ...operationalStatements(n),
  };
}

export type Statements = ReturnType<typeof statements>;
