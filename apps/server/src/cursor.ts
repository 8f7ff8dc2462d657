import { HttpProblem } from './problem.js';

/** An opaque keyset cursor: the sort position of the last item of a page. */
export interface Position {
  at: string;
  id: string;
}

export const encodeCursor = (p: Position) => Buffer.from(JSON.stringify([p.at, p.id])).toString('base64url');

export function decodeCursor(cursor: string): Position {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      typeof value[1] === 'string' &&
      !Number.isNaN(Date.parse(value[0]))
    ) {
      return { at: value[0], id: value[1] };
    }
  } catch {}
  throw new HttpProblem(400, 'invalid_cursor', 'Invalid cursor', 'The cursor is not one this API returned.');
}
