// postgres.js names the fields of a PostgreSQL error after the protocol (`table_name`,
// `constraint_name`, …) where node-postgres and PGlite say `table`, `constraint`, …; the engines
// read the latter (the idempotency engine tells its claim race by `table`). Copied across, in place.
const FIELDS: readonly (readonly [from: string, to: string])[] = [
  ['table_name', 'table'],
  ['schema_name', 'schema'],
  ['column_name', 'column'],
  ['constraint_name', 'constraint'],
  ['data_type_name', 'dataType'],
];

/** The same error, with node-postgres' field names present (a driver's own are kept). */
export function normalizePgError(error: unknown): unknown {
  if (typeof error !== 'object' || error === null) return error;
  const e = error as Record<string, unknown>;
  for (const [from, to] of FIELDS) {
    if (e[to] === undefined && typeof e[from] === 'string') e[to] = e[from];
  }
  return error;
}
