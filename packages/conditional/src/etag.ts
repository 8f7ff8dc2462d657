import { createHash } from 'node:crypto';
import { ConditionalError } from './errors.js';

/** An entity tag (RFC 9110 §8.8.3): its opaque value, without quotes, and whether it is weak. */
export interface ETag {
  /** True for a weak validator (`W/"…"`): equivalent content, not byte-identical. */
  weak: boolean;
  /** The characters between the quotes. */
  opaque: string;
}

// etagc = %x21 / %x23-7E / obs-text: any visible character but DQUOTE, plus bytes 0x80-0xFF.
const ETAGC = /^[\x21\x23-\x7e\x80-\xff]*$/;

/**
 * True when `opaque` may stand between the quotes of an entity tag.
 * @example isOpaqueTag('v7') // true; isOpaqueTag('a b') // false
 */
export function isOpaqueTag(opaque: string): boolean {
  return ETAGC.test(opaque);
}

/**
 * The header form of an entity tag: `"opaque"` or `W/"opaque"`.
 * @throws ConditionalError `SURETY_CONDITIONAL_INVALID_ETAG` when `opaque` holds a character an entity tag cannot carry (DQUOTE, space, control).
 * @example formatETag({ weak: true, opaque: 'abc' }) // 'W/"abc"'
 */
export function formatETag(tag: ETag): string {
  if (!isOpaqueTag(tag.opaque))
    throw new ConditionalError(
      'SURETY_CONDITIONAL_INVALID_ETAG',
      `not a valid entity tag value: ${JSON.stringify(tag.opaque)}`,
    );
  return `${tag.weak ? 'W/' : ''}"${tag.opaque}"`;
}

/**
 * Parses one entity tag as sent in an `ETag` header (`"v7"`, `W/"abc"`); undefined when malformed.
 * `W/` is case-sensitive (RFC 9110 §8.8.3), so `w/"x"` is malformed.
 * @example parseETag('W/"abc"') // { weak: true, opaque: 'abc' }
 */
export function parseETag(value: string): ETag | undefined {
  const text = value.trim();
  const weak = text.startsWith('W/');
  const quoted = weak ? text.slice(2) : text;
  if (quoted.length < 2 || quoted[0] !== '"' || quoted[quoted.length - 1] !== '"') return undefined;
  const opaque = quoted.slice(1, -1);
  return isOpaqueTag(opaque) ? { weak, opaque } : undefined;
}

/**
 * Strong comparison (RFC 9110 §8.8.3.2): both strong and the same opaque value. Used for If-Match.
 * @example strongMatch({ weak: false, opaque: 'a' }, { weak: true, opaque: 'a' }) // false
 */
export function strongMatch(a: ETag, b: ETag): boolean {
  return !a.weak && !b.weak && a.opaque === b.opaque;
}

/**
 * Weak comparison (RFC 9110 §8.8.3.2): the same opaque value, weakness ignored. Used for If-None-Match.
 * @example weakMatch({ weak: false, opaque: 'a' }, { weak: true, opaque: 'a' }) // true
 */
export function weakMatch(a: ETag, b: ETag): boolean {
  return a.opaque === b.opaque;
}

/** Options of {@link versionETag} and {@link versionFromETag}. */
export interface VersionETagOptions {
  /**
   * A per-resource value mixed into the tag as a short SHA-256 suffix (`"v7-1a2b3c4d"`). Use it when a
   * version number alone could name two different representations: a resource deleted and created again
   * (its version restarts at 1: pass its creation id or timestamp), or several representations of one
   * resource (pass the media type). Not a secret and not an authenticity check.
   * @default undefined (the tag is just `"v<version>"`)
   */
  salt?: string;
  /** Make a weak tag (`W/"v7"`). A weak tag can never satisfy If-Match. @default false */
  weak?: boolean;
}

const VERSION = /^v(0|[1-9][0-9]{0,15})(?:-([0-9a-f]{8}))?$/;

function saltSuffix(version: string, salt: string): string {
  return createHash('sha256').update(salt).update('\0').update(version).digest('hex').slice(0, 8);
}

function versionText(version: number | bigint | string): string {
  const text = String(version);
  if (!/^(0|[1-9][0-9]*)$/.test(text) || BigInt(text) > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new ConditionalError(
      'SURETY_CONDITIONAL_INVALID_VERSION',
      `a version must be a non-negative safe integer, got ${JSON.stringify(text)}`,
    );
  }
  return text;
}

/**
 * The ETag header value of a resource's version: `"v7"`, or `"v7-1a2b3c4d"` with a salt.
 *
 * Readable on purpose: the version can be read back from an If-Match ({@link versionFromETag}) and put
 * straight into `UPDATE … WHERE id = $1 AND version = $2` without a lookup. Versions are
 * non-negative safe integers (a PostgreSQL `bigint` arrives from `pg` as a string: pass it as is).
 * @throws ConditionalError `SURETY_CONDITIONAL_INVALID_VERSION` when the version is not a non-negative safe integer.
 * @example
 * reply.header('etag', versionETag(row.version)); // "v7"
 * versionETag(7, { salt: order.created_at.toISOString() }); // "v7-…"
 */
export function versionETag(version: number | bigint | string, options: VersionETagOptions = {}): string {
  const text = versionText(version);
  const salt = options.salt;
  const opaque = salt === undefined ? `v${text}` : `v${text}-${saltSuffix(text, salt)}`;
  return formatETag({ weak: options.weak ?? false, opaque });
}

/**
 * The version a tag made by {@link versionETag} carries (same salt), or undefined when the tag is not one
 * of ours, is weak, or carries another salt. Such a tag can never strongly match a current version tag.
 * @example versionFromETag('"v7"') // 7
 */
export function versionFromETag(
  tag: string | ETag,
  options: Pick<VersionETagOptions, 'salt'> = {},
): number | undefined {
  const parsed = typeof tag === 'string' ? parseETag(tag) : tag;
  if (!parsed || parsed.weak) return undefined;
  const match = VERSION.exec(parsed.opaque);
  if (!match) return undefined;
  const [, version, suffix] = match as unknown as [string, string, string | undefined];
  const salt = options.salt;
  if (salt === undefined ? suffix !== undefined : suffix !== saltSuffix(version, salt)) return undefined;
  const n = Number(version);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Options of {@link contentETag}. */
export interface ContentETagOptions {
  /**
   * Make a weak tag. Use weak when the hash is of a canonical form rather than the exact bytes sent
   * (for example an object hashed before serialisation, or a body that may be compressed on the way).
   * @default false
   */
  weak?: boolean;
}

/**
 * An ETag from the representation's bytes, for responses that have no version (lists, reports,
 * computed documents): the first 128 bits of SHA-256, base64url. Strong by default, so only hash the
 * exact bytes you send.
 * @example
 * const body = JSON.stringify(list);
 * reply.header('etag', contentETag(body)); // "n4bQgYhMfWWaL-qgxVrQFa"
 */
export function contentETag(body: string | Uint8Array, options: ContentETagOptions = {}): string {
  const digest = createHash('sha256').update(body).digest().subarray(0, 16).toString('base64url');
  return formatETag({ weak: options.weak ?? false, opaque: digest });
}
