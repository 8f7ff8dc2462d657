import pg from 'pg';

/**
 * A value as an SQL literal, for the few statements that must travel without parameters (the
 * simple protocol: `first` with BEGIN, `atCommit` with COMMIT). Strings are quoted by node-postgres'
 * `escapeLiteral` (quotes doubled; an `E'...'` string with backslashes doubled when there are any),
 * correct whatever `standard_conforming_strings` says. Prefer bound parameters everywhere else.
 * @example
 * literal("it's"); // 'it''s'
 * literal(42); // 42
 * literal(null); // null
 */
export function literal(value: string | number | boolean | null): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`not a finite number: ${value}`);
    return String(value);
  }
  if (typeof value !== 'string') throw new TypeError('literal takes a string, number, boolean or null');
  // PostgreSQL text cannot hold NUL; refuse here rather than let the server truncate or fail oddly.
  if (value.includes('\0')) throw new TypeError('text values cannot contain NUL (\\u0000)');
  return pg.escapeLiteral(value);
}
