// @ts-check
// Formatting of times, durations and rates for people.

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' });
const absolute = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
/** @type {Array<[Intl.RelativeTimeFormatUnit, number]>} */
const UNITS = [
  ['year', 31_536_000],
  ['month', 2_592_000],
  ['day', 86_400],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/**
 * "3 min. ago", "in 5 sec.", "now".
 * @param {string} iso
 * @param {number} [now] epoch milliseconds
 */
export function ago(iso, now = Date.now()) {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  if (Math.abs(seconds) < 5) return 'just now';
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  }
  return 'just now';
}

/**
 * A <time> element showing a relative time, with the exact time as its tooltip; "—" for none.
 * @param {string | null | undefined} iso
 * @param {string} [empty]
 * @returns {HTMLTimeElement | string}
 */
export function when(iso, empty = '—') {
  if (!iso) return empty;
  const el = document.createElement('time');
  el.dateTime = iso;
  el.title = absolute.format(new Date(iso));
  el.textContent = ago(iso);
  return el;
}

/** @param {string | null | undefined} iso */
export const exact = (iso) => (iso ? absolute.format(new Date(iso)) : '—');

/**
 * 0.985 → "98.5 %"; null (no attempts) → "no traffic".
 * @param {number | null | undefined} value
 */
export function rate(value) {
  if (value === null || value === undefined) return 'no traffic';
  const pct = value * 100;
  return `${pct === 100 || pct === 0 ? pct.toFixed(0) : pct.toFixed(1)} %`;
}

/**
 * The tone of a success rate: ok, warn or bad.
 * @param {number | null | undefined} value
 * @returns {'ok' | 'warn' | 'bad' | 'neutral'}
 */
export function rateTone(value) {
  if (value === null || value === undefined) return 'neutral';
  if (value >= 0.99) return 'ok';
  if (value >= 0.9) return 'warn';
  return 'bad';
}

/**
 * 42 → "42 ms", 1830 → "1.83 s".
 * @param {number | null | undefined} ms
 */
export function duration(ms) {
  if (ms === null || ms === undefined) return '—';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/**
 * A value for <input type="datetime-local"> in local time.
 * @param {Date} date
 */
export function toLocalInput(date) {
  /** @param {number} n */
  const pad = (n) => String(n).padStart(2, '0');
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}`
  );
}

/**
 * "1 attempt", "3 attempts".
 * @param {number} n
 * @param {string} one
 * @param {string} [many]
 */
export const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
