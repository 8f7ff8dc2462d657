import { type VersionETagOptions, versionFromETag } from './etag.js';
import { parseETagList } from './parse.js';
import { type Problem, preconditionFailedProblem, versionConflictProblem } from './problem.js';

/**
 * What an If-Match header says about the version a write expects.
 * - `absent`: no If-Match (a required one is a 428).
 * - `any`: `If-Match: *`: any existing version.
 * - `version`: exactly one usable tag: use it as `$2` in `… WHERE id = $1 AND version = $2`.
 * - `versions`: several (rare): `… AND version = ANY($2)`.
 * - `unmatchable`: valid, but no tag is a strong version tag of this resource (weak, foreign, other
 *   salt): it can never match, so the write is a 412 (or a 404 if the resource does not exist).
 * - `malformed`: a 400.
 */
export type IfMatchVersion =
  | { kind: 'absent' }
  | { kind: 'any' }
  | { kind: 'version'; version: number }
  | { kind: 'versions'; versions: number[] }
  | { kind: 'unmatchable' }
  | { kind: 'malformed'; detail: string };

/**
 * Reads the expected version out of an If-Match header whose tags were made by {@link versionETag}
 * (pass the same salt), so a versioned update can be one statement with no read before it.
 * @example
 * const expected = ifMatchVersion(req.headers['if-match']);
 * if (expected.kind === 'version') {
 *   const { rows } = await tx.query(
 *     'update orders set body = $3, version = version + 1 where id = $1 and version = $2 returning version',
 *     [id, expected.version, body],
 *   );
 *   if (rows.length === 0) // 404 if the order is gone, else 412
 * }
 */
export function ifMatchVersion(
  value: string | readonly string[] | undefined,
  options: Pick<VersionETagOptions, 'salt'> = {},
): IfMatchVersion {
  if (value === undefined) return { kind: 'absent' };
  const parsed = parseETagList(value);
  if (!parsed.ok) return { kind: 'malformed', detail: `If-Match: ${parsed.detail}` };
  if (parsed.any) return { kind: 'any' };
  const versions = [
    ...new Set(
      parsed.tags.map((tag) => versionFromETag(tag, options)).filter((v): v is number => v !== undefined),
    ),
  ];
  if (versions.length === 0) return { kind: 'unmatchable' };
  if (versions.length === 1) return { kind: 'version', version: versions[0]! };
  return { kind: 'versions', versions };
}

/**
 * The answer when a versioned write matched no row although the request passed its preconditions:
 * `UPDATE … WHERE id = $1 AND version = $2` after a concurrent update, or
 * `INSERT … ON CONFLICT DO NOTHING` after a concurrent create. When the client made the request
 * conditional (If-Match, or If-None-Match / If-Unmodified-Since: pass the `proceed` result) its
 * precondition has turned false: 412 `precondition_failed`. Otherwise 409 `version_conflict`.
 * Pass a boolean when you have no result (the one-statement pattern): whether If-Match was sent.
 * @example
 * if (rows.length === 0) return send(staleWriteProblem(check.result)); // 412, or 409 for a blind write
 */
export function staleWriteProblem(conditional: boolean | { conditional: boolean }): Problem {
  const sent = typeof conditional === 'boolean' ? conditional : conditional.conditional;
  return sent ? preconditionFailedProblem() : versionConflictProblem();
}
