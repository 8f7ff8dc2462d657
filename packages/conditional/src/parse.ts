import type { ETag } from './etag.js';

/**
 * A parsed If-Match / If-None-Match value, tagged `kind` (the discriminant): `any` (`*`), `tags` (a
 * non-empty list of entity tags), or `invalid` with why the value is malformed. `ok` and `any` say
 * the same (kept for existing callers).
 */
export type ETagListParse =
  | { kind: 'any'; ok: true; any: true }
  | { kind: 'tags'; ok: true; any: false; tags: ETag[] }
  | { kind: 'invalid'; ok: false; detail: string };

const isOws = (c: string | undefined) => c === ' ' || c === '\t';

/**
 * Parses an If-Match or If-None-Match field value (RFC 9110 §13.1.1-2): `"*"` alone, or a
 * comma-separated list of entity tags. Empty list elements and optional whitespace are accepted (RFC 9110
 * §5.6.1); a tag may contain a comma, so the list is scanned, not split. Malformed, with a reason: an
 * unquoted tag, a lower-case `w/`, `*` inside a list, text after a tag, or an empty value (almost always an
 * unset variable on the client: a 400 says so, where evaluating an empty list would answer 412).
 * Several header lines are joined with ", " first, as RFC 9110 §5.3 allows.
 * @example
 * parseETagList('"a", W/"b"') // { kind: 'tags', ok: true, any: false, tags: [{ weak: false, opaque: 'a' }, { weak: true, opaque: 'b' }] }
 * parseETagList('*')          // { kind: 'any', ok: true, any: true }
 * parseETagList('abc')        // { kind: 'invalid', ok: false, detail: '…' }
 */
export function parseETagList(value: string | readonly string[]): ETagListParse {
  const text = typeof value === 'string' ? value : value.join(', ');
  if (text.trim() === '*') return { kind: 'any', ok: true, any: true };
  const tags: ETag[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (isOws(c) || c === ',') {
      i++;
      continue;
    }
    const start = i;
    let weak = false;
    if (text.startsWith('W/', i)) {
      weak = true;
      i += 2;
    }
    if (text[i] !== '"') {
      if (c === '*')
        return {
          kind: 'invalid',
          ok: false,
          detail: '"*" must be the whole field value, not part of a list',
        };
      const token = text.slice(start).split(',')[0]?.trim() ?? '';
      return {
        kind: 'invalid',
        ok: false,
        detail: `${JSON.stringify(token)} is not an entity tag: tags are quoted, as in "v7" or W/"v7"`,
      };
    }
    const close = text.indexOf('"', i + 1);
    if (close === -1)
      return { kind: 'invalid', ok: false, detail: 'an entity tag is missing its closing quote' };
    const opaque = text.slice(i + 1, close);
    if (!/^[\x21\x23-\x7e\x80-\xff]*$/.test(opaque)) {
      return {
        kind: 'invalid',
        ok: false,
        detail: `${JSON.stringify(opaque)} holds characters an entity tag cannot carry`,
      };
    }
    tags.push({ weak, opaque });
    i = close + 1;
    while (isOws(text[i])) i++;
    if (i < n && text[i] !== ',') {
      return { kind: 'invalid', ok: false, detail: 'entity tags must be separated by commas' };
    }
  }
  if (tags.length === 0)
    return {
      kind: 'invalid',
      ok: false,
      detail: 'the field is empty: send an entity tag such as "v7", or *',
    };
  return { kind: 'tags', ok: true, any: false, tags };
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

// RFC 9110 §5.6.7: IMF-fixdate, and the two obsolete forms a recipient MUST also accept.
const IMF_FIXDATE = /^([A-Z][a-z]{2}), (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC850 = /^([A-Z][a-z]{5,8}), (\d{2})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME = /^([A-Z][a-z]{2}) ([A-Z][a-z]{2}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

function build(
  dayName: string,
  names: readonly string[],
  day: string,
  month: string,
  year: number,
  hh: string,
  mm: string,
  ss: string,
): Date | undefined {
  const m = MONTHS.indexOf(month);
  const [d, h, min, s] = [Number(day), Number(hh), Number(mm), Number(ss)];
  if (m === -1 || h > 23 || min > 59 || s > 60 || d < 1) return undefined;
  // A leap second (":60") is valid syntax; it is read as the last second of its minute.
  const date = new Date(Date.UTC(year, m, d, h, min, Math.min(s, 59)));
  if (year < 100) date.setUTCFullYear(year);
  // Reject 31 Feb and a day name that is not that date's (Date.UTC would silently roll over).
  if (date.getUTCDate() !== d || names[date.getUTCDay()] !== dayName) return undefined;
  return date;
}

/**
 * Parses an HTTP-date (RFC 9110 §5.6.7) strictly: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) and the
 * obsolete RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`) forms.
 * Anything else, including a wrong day name or a list of dates, is undefined. A two-digit year more than
 * 50 years in the future is read as the most recent past year with those digits, as the RFC requires.
 * @example parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')?.toISOString() // '1994-11-06T08:49:37.000Z'
 */
export function parseHttpDate(value: string, now: Date = new Date()): Date | undefined {
  const text = value.trim();
  let m = IMF_FIXDATE.exec(text);
  if (m) {
    const [, dn, d, mon, y, hh, mm, ss] = m as unknown as string[];
    return build(dn!, DAYS, d!, mon!, Number(y), hh!, mm!, ss!);
  }
  m = RFC850.exec(text);
  if (m) {
    const [, dn, d, mon, yy, hh, mm, ss] = m as unknown as string[];
    const thisYear = now.getUTCFullYear();
    let year = Math.floor(thisYear / 100) * 100 + Number(yy);
    if (year > thisYear + 50) year -= 100;
    else if (year <= thisYear - 50) year += 100;
    return build(dn!, LONG_DAYS, d!, mon!, year, hh!, mm!, ss!);
  }
  m = ASCTIME.exec(text);
  if (m) {
    const [, dn, mon, d, hh, mm, ss, y] = m as unknown as string[];
    return build(dn!, DAYS, d!.trim().padStart(2, '0'), mon!, Number(y), hh!, mm!, ss!);
  }
  return undefined;
}

/**
 * Formats a date as an IMF-fixdate, for `Last-Modified`. HTTP dates have one-second resolution.
 * @example formatHttpDate(new Date(0)) // 'Thu, 01 Jan 1970 00:00:00 GMT'
 */
export function formatHttpDate(date: Date): string {
  return date.toUTCString();
}
