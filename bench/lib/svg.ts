// Hand-written SVG charts for docs/benchmarks.md: horizontal bars (throughput per configuration) and
// lines (latency against rate). No dependencies; readable in a browser and on GitHub.

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const fmt = (n: number) =>
  n >= 100 ? Math.round(n).toLocaleString('en-US') : n >= 10 ? n.toFixed(1) : n.toFixed(2);
const COLORS = ['#2f6fdf', '#e0762b', '#3a9e4f', '#b83fb0', '#8a6d3b', '#d1345b'];
const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"';

/** A "nice" upper bound for an axis: 1, 2 or 5 × 10^k at or above `max`. */
function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= max) return m * p;
  return 10 * p;
}

export interface Bar {
  label: string;
  value: number;
  /** Spread over runs, drawn as a whisker. */
  min?: number;
  max?: number;
  /** Index into the palette: bars of one contender share a colour. */
  group?: number;
}

export function barChart(title: string, unit: string, bars: Bar[]): string {
  const labelW = 300;
  const plotW = 420;
  const rowH = 26;
  const top = 40;
  const h = top + bars.length * rowH + 40;
  const w = labelW + plotW + 90;
  const max = niceMax(Math.max(...bars.map((b) => b.max ?? b.value)));
  const x = (v: number) => labelW + (v / max) * plotW;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" ${FONT} font-size="13">`,
    `<title>${esc(title)}</title>`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="12" y="22" font-size="15" font-weight="600">${esc(title)}</text>`,
  ];
  for (let t = 0; t <= 4; t++) {
    const v = (max * t) / 4;
    out.push(
      `<line x1="${x(v)}" y1="${top - 4}" x2="${x(v)}" y2="${top + bars.length * rowH}" stroke="#ddd"/>`,
      `<text x="${x(v)}" y="${top + bars.length * rowH + 16}" text-anchor="middle" fill="#555">${fmt(v)}</text>`,
    );
  }
  out.push(
    `<text x="${labelW + plotW / 2}" y="${h - 6}" text-anchor="middle" fill="#333">${esc(unit)}</text>`,
  );
  bars.forEach((b, i) => {
    const y = top + i * rowH;
    const color = COLORS[(b.group ?? i) % COLORS.length];
    out.push(
      `<text x="${labelW - 8}" y="${y + 17}" text-anchor="end">${esc(b.label)}</text>`,
      `<rect x="${labelW}" y="${y + 4}" width="${Math.max(1, x(b.value) - labelW)}" height="${rowH - 8}" fill="${color}"/>`,
    );
    if (b.min !== undefined && b.max !== undefined && b.max > b.min)
      out.push(
        `<line x1="${x(b.min)}" y1="${y + rowH / 2}" x2="${x(b.max)}" y2="${y + rowH / 2}" stroke="#222" stroke-width="1.5"/>`,
        `<line x1="${x(b.min)}" y1="${y + 8}" x2="${x(b.min)}" y2="${y + rowH - 8}" stroke="#222"/>`,
        `<line x1="${x(b.max)}" y1="${y + 8}" x2="${x(b.max)}" y2="${y + rowH - 8}" stroke="#222"/>`,
      );
    out.push(`<text x="${x(b.max ?? b.value) + 6}" y="${y + 17}" fill="#222">${fmt(b.value)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

export function lineChart(
  title: string,
  xUnit: string,
  yUnit: string,
  series: Record<string, [number, number][]>,
): string {
  const w = 640;
  const h = 380;
  const left = 70;
  const right = 160;
  const top = 40;
  const bottom = 50;
  const all = Object.values(series).flat();
  const xMax = niceMax(Math.max(...all.map((p) => p[0])));
  const yMax = niceMax(Math.max(...all.map((p) => p[1])));
  const px = (v: number) => left + (v / xMax) * (w - left - right);
  const py = (v: number) => h - bottom - (v / yMax) * (h - top - bottom);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" ${FONT} font-size="13">`,
    `<title>${esc(title)}</title>`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="12" y="22" font-size="15" font-weight="600">${esc(title)}</text>`,
  ];
  for (let t = 0; t <= 4; t++) {
    const xv = (xMax * t) / 4;
    const yv = (yMax * t) / 4;
    out.push(
      `<line x1="${px(xv)}" y1="${top}" x2="${px(xv)}" y2="${h - bottom}" stroke="#eee"/>`,
      `<text x="${px(xv)}" y="${h - bottom + 16}" text-anchor="middle" fill="#555">${fmt(xv)}</text>`,
      `<line x1="${left}" y1="${py(yv)}" x2="${w - right}" y2="${py(yv)}" stroke="#eee"/>`,
      `<text x="${left - 6}" y="${py(yv) + 4}" text-anchor="end" fill="#555">${fmt(yv)}</text>`,
    );
  }
  out.push(
    `<line x1="${left}" y1="${h - bottom}" x2="${w - right}" y2="${h - bottom}" stroke="#333"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${h - bottom}" stroke="#333"/>`,
    `<text x="${(left + w - right) / 2}" y="${h - 12}" text-anchor="middle" fill="#333">${esc(xUnit)}</text>`,
    `<text x="16" y="${(top + h - bottom) / 2}" text-anchor="middle" fill="#333" transform="rotate(-90 16 ${(top + h - bottom) / 2})">${esc(yUnit)}</text>`,
  );
  Object.entries(series).forEach(([name, points], i) => {
    const color = COLORS[i % COLORS.length];
    const sorted = [...points].sort((a, b) => a[0] - b[0]);
    out.push(
      `<polyline fill="none" stroke="${color}" stroke-width="2" points="${sorted.map((p) => `${px(p[0]).toFixed(1)},${py(p[1]).toFixed(1)}`).join(' ')}"/>`,
      ...sorted.map(
        (p) => `<circle cx="${px(p[0]).toFixed(1)}" cy="${py(p[1]).toFixed(1)}" r="3.5" fill="${color}"/>`,
      ),
      `<rect x="${w - right + 14}" y="${top + i * 22}" width="14" height="4" fill="${color}" transform="translate(0 6)"/>`,
      `<text x="${w - right + 34}" y="${top + i * 22 + 12}">${esc(name)}</text>`,
    );
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
