import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const TIME_CHARS = 8; // 62^8 ms ≈ 6,900 years from 1970
const RANDOM_CHARS = 14; // 62^14 ≈ 2^83 per millisecond
// The largest multiple of 62 below 256: bytes at or above it are redrawn, so every character is
// equally likely (a plain `% 62` favours the first eight).
const UNBIASED = 248;
// Entropy is drawn 4 KiB at a time (as randomUUID does): a call into the random source per id cost
// ~30 µs of a request's CPU in the idempotency benchmark's profile.
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

/**
 * `evt_…`, `we_…`, `pay_…`: a prefix and 22 base62 characters, 8 of creation time in milliseconds
 * then 14 random (about 83 bits), KSUID-style. Ids made later sort later (byte order), so rows
 * inserted together sit together in every index keyed by the id: a random id puts each insert, and
 * each non-HOT update of a row that references it, on a random leaf page of an index that outgrew
 * memory (a cache miss and a full-page WAL image per page after each checkpoint; bench/growth).
 * The id reveals when it was made, as Stripe's and Svix's do.
 */
export function newId(prefix: string, now: number = Date.now()): string {
  let random = '';
  while (random.length < RANDOM_CHARS) {
    if (poolAt === pool.length) {
      randomFillSync(pool);
      poolAt = 0;
    }
    const b = pool[poolAt++]!;
    if (b < UNBIASED) random += ALPHABET[b % 62];
  }
  return `${idTimePrefix(prefix, now)}${random}`;
}

/**
 * The part of an id made at `now` that its time decides: `prefix_` and the 8 characters of time.
 * The publish statement completes it in SQL with 14 random characters (RANDOM_ID_TAIL, sql/values.ts).
 */
export function idTimePrefix(prefix: string, now: number): string {
  let time = '';
  for (let t = Math.floor(now), i = 0; i < TIME_CHARS; i++, t = Math.floor(t / 62)) {
    time = ALPHABET[t % 62]! + time;
  }
  return `${prefix}_${time}`;
}
