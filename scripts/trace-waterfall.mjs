#!/usr/bin/env node
// Draws one trace as a waterfall SVG (docs/observability.md): no trace viewer runs here, so the picture
// is made from the spans a test exported to its OTLP collector. Run the end-to-end test with
// TRACE_SVG_OUT set, then this script on the file it wrote:
//
//   TRACE_SVG_OUT=/tmp/trace.json node scripts/test.mjs apps/server/test/tracing/otlp-e2e
//   node scripts/trace-waterfall.mjs /tmp/trace.json docs/observability-trace.svg
//
// Top: the payment request's trace (its spans nested by parent). Below: the webhook attempts, each
// the root of its own trace, linked to the publishing span; placed at their offset in seconds.
import { readFileSync, writeFileSync } from 'node:fs';

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node scripts/trace-waterfall.mjs <spans.json> <out.svg>');
  process.exit(2);
}
const { traceId, spans: all } = JSON.parse(readFileSync(input, 'utf8'));
const spans = all
  .map((s) => ({ ...s, start: BigInt(s.startNs), end: BigInt(s.endNs) }))
  // Fastify's per-hook spans say little here; the request, handler and everything else stay.
  .filter((s) => !(s.scope === '@fastify/otel' && s.attributes['fastify.type'] === 'hook'));
const main = spans.filter((s) => s.traceId === traceId).sort((a, b) => (a.start < b.start ? -1 : 1));
const attempts = spans
  .filter((s) => s.traceId !== traceId)
  .sort(
    (a, b) => Number(a.attributes['surety.webhook.attempt']) - Number(b.attributes['surety.webhook.attempt']),
  );

const byId = new Map(main.map((s) => [s.spanId, s]));
const depth = (s) => {
  let d = 0;
  for (let p = byId.get(s.parentSpanId); p && d < 20; p = byId.get(p.parentSpanId)) d++;
  return d;
};
// Children right under their parent, in start order.
const ordered = [];
const visit = (s) => {
  ordered.push(s);
  for (const c of main.filter((x) => x.parentSpanId === s.spanId)) visit(c);
};
for (const root of main.filter((s) => !byId.has(s.parentSpanId))) visit(root);

const t0 = main[0].start;
let t1 = t0; // BigInt nanoseconds: no Math.max
for (const s of main) if (s.end > t1) t1 = s.end;
const ms = (ns) => Number(ns) / 1e6;
const W = 980;
const LABEL = 360;
const BAR = W - LABEL - 90;
const ROW = 22;
const esc = (t) => String(t).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const colour = (s) =>
  ({
    '@opentelemetry/instrumentation-http': '#4e79a7',
    '@fastify/otel': '#76b7b2',
    '@surety/idempotency': '#f28e2b',
    '@surety/webhooks': '#59a14f',
    '@surety/fetch': '#af7aa1',
  })[s.scope] ?? '#9c9c9c';
const label = (s) => {
  const a = s.attributes;
  if (a['surety.idempotency.outcome'] && s.kind === 2)
    return `${s.name}  [${a['surety.idempotency.outcome']}]`;
  if (s.scope === '@surety/webhooks')
    return `webhook attempt ${a['surety.webhook.attempt']}: ${a['http.response.status_code']} ${a['surety.webhook.outcome']}`;
  return s.name;
};

const rows = [];
let y = 56;
const total = ms(t1 - t0) || 1;
rows.push(
  `<text x="12" y="${y - 14}" class="h">payment trace ${traceId.slice(0, 8)}… (${total.toFixed(1)} ms)</text>`,
);
for (const s of ordered) {
  const x = LABEL + (ms(s.start - t0) / total) * BAR;
  const w = Math.max(2, (ms(s.end - s.start) / total) * BAR);
  rows.push(
    `<text x="${12 + depth(s) * 14}" y="${y + 15}">${esc(label(s))}</text>`,
    `<rect x="${x.toFixed(1)}" y="${y + 4}" width="${w.toFixed(1)}" height="14" rx="2" fill="${colour(s)}"/>`,
    `<text x="${(x + w + 4).toFixed(1)}" y="${y + 15}" class="d">${ms(s.end - s.start).toFixed(1)} ms</text>`,
  );
  y += ROW;
}
y += 30;
rows.push(
  `<text x="12" y="${y - 10}" class="h">webhook attempts: each its own trace, LINKED to the publishing request (placed by offset in seconds; bar length by duration)</text>`,
);
const longest = attempts.reduce((m, s) => Math.max(m, ms(s.end - s.start)), 1);
const maxOffset = attempts.reduce((m, s) => Math.max(m, ms(s.start - t0) / 1000), 0.001);
for (const s of attempts) {
  const offset = ms(s.start - t0) / 1000;
  const w = Math.max(2, (ms(s.end - s.start) / longest) * (BAR / 3));
  const x = LABEL + (offset / maxOffset) * (BAR * 0.7);
  rows.push(
    `<text x="12" y="${y + 15}">${esc(label(s))}</text>`,
    `<text x="${LABEL - 70}" y="${y + 15}" class="d">+${offset.toFixed(1)} s</text>`,
    `<rect x="${x.toFixed(1)}" y="${y + 4}" width="${w.toFixed(1)}" height="14" rx="2" fill="${colour(s)}"/>`,
    `<text x="${(x + w + 4).toFixed(1)}" y="${y + 15}" class="d">${ms(s.end - s.start).toFixed(1)} ms · linked to “${esc(byId.get(s.links[0]?.spanId)?.name ?? '?')}”</text>`,
  );
  y += ROW;
}
const H = y + 20;
const title = 'A waterfall of one keyed payment trace and its linked webhook attempts';
const svg = `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${title}" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="ui-monospace, Menlo, monospace" font-size="12">
<title>${title}</title>
<style>text{fill:#222}.h{font-weight:bold;font-size:13px}.d{fill:#555;font-size:11px}</style>
<rect width="100%" height="100%" fill="#fff"/>
<text x="12" y="20" class="h">Surety: one keyed payment and its webhook, from exported OTLP spans (service.name ${esc(main[0].service ?? '')})</text>
${rows.join('\n')}
</svg>
`;
writeFileSync(output, svg);
console.log(`wrote ${output}: ${ordered.length} spans in the trace, ${attempts.length} linked attempts`);
