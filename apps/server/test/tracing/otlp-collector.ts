// A small OTLP/HTTP collector on 127.0.0.1 for the end-to-end tests: takes POST /v1/traces in the
// OTLP/JSON encoding (OTEL_EXPORTER_OTLP_PROTOCOL=http/json) and keeps the spans, flattened.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type AnyValue = {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };

/** A span as the collector received it, attributes decoded. */
export interface CollectedSpan {
  service: string | undefined;
  scope: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
}

function decode(v: AnyValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue !== undefined) return (v.arrayValue.values ?? []).map(decode);
  return undefined;
}
const attributes = (kvs: KeyValue[] | undefined) =>
  Object.fromEntries((kvs ?? []).map((kv) => [kv.key, decode(kv.value)]));

export interface Collector {
  url: string;
  spans: CollectedSpan[];
  /** Requests that were not a valid OTLP/JSON trace export. */
  rejected: number;
  /** Resolves once `predicate` holds for the spans received (checked on each export), or rejects after `timeoutMs`. */
  waitFor(predicate: (spans: CollectedSpan[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startCollector(): Promise<Collector> {
  const spans: CollectedSpan[] = [];
  const waiters = new Set<() => void>();
  let rejected = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        if (req.method !== 'POST' || req.url !== '/v1/traces') throw new Error('not a trace export');
        if (!String(req.headers['content-type']).startsWith('application/json')) throw new Error('not JSON');
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        for (const rs of body.resourceSpans ?? []) {
          const service = attributes(rs.resource?.attributes)['service.name'] as string | undefined;
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                service,
                scope: ss.scope?.name ?? '',
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId || undefined,
                name: s.name,
                kind: s.kind,
                startNs: BigInt(s.startTimeUnixNano),
                endNs: BigInt(s.endTimeUnixNano),
                attributes: attributes(s.attributes),
                links: (s.links ?? []).map((l: { traceId: string; spanId: string }) => ({
                  traceId: l.traceId,
                  spanId: l.spanId,
                })),
              });
            }
          }
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch {
        rejected++;
        res.writeHead(400).end();
      }
      for (const w of waiters) w();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    get rejected() {
      return rejected;
    },
    waitFor(predicate, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(spans)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`collector: condition not met in ${timeoutMs} ms (${spans.length} spans)`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}
