// Formatting of times, durations and rates for people.

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' });
const absolute = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const UNITS = [
  ['year', 31_536_000],
  ['month', 2_592_000],
  ['day', 86_400],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/** "3 min. ago", "in 5 sec.", "now". */
export function ago(iso, now = Date.now()) {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  if (Math.abs(seconds) < 5) return 'just now';
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  }
  return 'just now';
}

/** A <time> element showing a relative time, with the exact time as its tooltip; "—" for none. */
export function when(iso, empty = '—') {
  if (!iso) return empty;
  const el = document.createElement('time');
  el.dateTime = iso;
  el.title = absolute.format(new Date(iso));
  el.textContent = ago(iso);
  return el;
}

export const exact = (iso) => (iso ? absolute.format(new Date(iso)) : '—');

/** 0.985 → "98.5 %"; null (no attempts) → "no traffic". */
export function rate(value) {
  if (value === null || value === undefined) return 'no traffic';
  const pct = value * 100;
  return `${pct === 100 || pct === 0 ? pct.toFixed(0) : pct.toFixed(1)} %`;
}

/** The tone of a success rate: ok, warn or bad. */
export function rateTone(value) {
  if (value === null || value === undefined) return 'neutral';
  if (value >= 0.99) return 'ok';
  if (value >= 0.9) return 'warn';
  return 'bad';
}

/** 42 → "42 ms", 1830 → "1.83 s". */
export function duration(ms) {
  if (ms === null || ms === undefined) return '—';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** A value for <input type="datetime-local"> in local time. */
export function toLocalInput(date) {
  const pad = (n) => String(n).padStart(2, '0');
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}`
  );
}

export const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
