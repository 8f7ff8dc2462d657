/** The `x-` extensions the rules read, for what a document cannot show (docs/contracts.md). */

/** On a POST (or its path): repeating it is harmless, so it needs no Idempotency-Key. */
export const NATURALLY_IDEMPOTENT = 'x-idempotent';
/** On the key parameter, the operation or the path: the key's expiry (e.g. "PT24H"). */
export const KEY_TTL = 'x-idempotency-ttl';
/** On a path or an operation: whether it is a versioned resource (overrides what is inferred). */
export const VERSIONED = 'x-versioned';
/** On a webhook or callback: its signature scheme, where no header parameter shows it. */
export const SIGNATURE = 'x-webhook-signature';
