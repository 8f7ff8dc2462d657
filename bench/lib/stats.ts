// Small statistics helpers shared by the benchmarks.

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** The p-th percentile (nearest rank) of unsorted samples. */
export const percentile = (xs: readonly number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? Number.NaN;
};

export const round = (x: number, digits = 2): number => Number(x.toFixed(digits));

/** Parses `--name value` and `--flag` from argv. */
export function args(argv: readonly string[] = process.argv.slice(2)) {
  const has = (name: string) => argv.includes(`--${name}`);
  const num = (name: string, fallback: number) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 && argv[i + 1] !== undefined ? Number(argv[i + 1]) : fallback;
  };
  const str = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  return { has, num, str, quick: has('quick') };
}

/** Runs `sql` as the admin connection (schema create/drop) and closes it. */
export async function adminQuery(url: string, text: string): Promise<void> {
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

export function requireDatabaseUrl(what: string): string {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error(`set DATABASE_URL to a PostgreSQL database (${what})`);
    process.exit(2);
  }
  return url;
}

/**
 * A before/during comparison measured in rounds (each its own before-window, then its during):
 * each round's p-th percentile ratio, their median, min and max, and the measure's own A/A test,
 * each before-window's first half ÷ its second half (the spread a ratio of 1 shows by noise alone).
 */
export function roundRatios(
  rounds: readonly { before: readonly number[]; during: readonly number[] }[],
  p = 99,
) {
  const ratios = rounds.map((r) => percentile(r.during, p) / percentile(r.before, p));
  const aa = rounds.map((r) => {
    const h = Math.floor(r.before.length / 2);
    return percentile(r.before.slice(0, h), p) / percentile(r.before.slice(h), p);
  });
  const low = (xs: number[]) => (xs.length ? Math.min(...xs) : Number.NaN);
  const high = (xs: number[]) => (xs.length ? Math.max(...xs) : Number.NaN);
  return {
    ratios,
    median: median(ratios),
    min: low(ratios),
    max: high(ratios),
    aa,
    aaMin: low(aa),
    aaMax: high(aa),
  };
}
