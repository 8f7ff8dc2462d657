// The engine's own guard for what its callers pass in: a library user calling publish() or
// createEndpoint() directly gets a coded error, not PostgreSQL's 22021 / 22P05 / 22P02. The rule
// is @surety/db's, the same one the service applies to every request.
import { findUnstorable, isStorableTimestamp } from '@surety/db';
import { InvalidEventError, InvalidInputError } from './errors.js';

/**
 * Throws when any string in `args` (keys and values, at any depth) cannot be stored: an
 * InvalidEventError for an event, an InvalidInputError otherwise.
 */
export function assertStorable(args: Record<string, unknown>, kind: 'event' | 'input' = 'input'): void {
  const found = findUnstorable(args);
  if (!found) return;
  const message = `${found.path}: ${found.message}`;
  const errors = [{ path: found.path, message: found.message }];
  throw kind === 'event' ? new InvalidEventError(message, errors) : new InvalidInputError(message, errors);
}

/** Throws InvalidInputError unless `at` is a valid Date a `timestamptz` parameter can carry. */
export function assertTimestamp(name: string, at: Date): void {
  if (at instanceof Date && isStorableTimestamp(at)) return;
  const message = 'must be a valid Date between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z';
  throw new InvalidInputError(`/${name}: ${message}`, [{ path: `/${name}`, message }]);
}
