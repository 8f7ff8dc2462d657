// The OpenTelemetry SDK as the service registers it (telemetry.ts), with an in-memory exporter, for
// the tracing tests. Call before anything loads Fastify (import the app dynamically after it), so
// the HTTP instrumentation sees node:http load through Fastify's require.
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';

export async function registerTestSdk() {
  const { NodeTracerProvider, SimpleSpanProcessor, InMemorySpanExporter } = await import(
    '@opentelemetry/sdk-trace-node'
  );
  const { registerInstrumentations } = await import('@opentelemetry/instrumentation');
  const { HttpInstrumentation } = await import('@opentelemetry/instrumentation-http');
  const { FastifyOtelInstrumentation } = await import('@fastify/otel');
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation(),
      new FastifyOtelInstrumentation({ registerOnInitialization: true }),
    ],
  });
  return { exporter, provider };
}

/** Every attribute value of every span (and of their events and links), as one string to search. */
export function attributeText(spans: readonly ReadableSpan[]): string {
  const parts: string[] = [];
  for (const s of spans) {
    parts.push(s.name, JSON.stringify(s.attributes));
    for (const e of s.events) parts.push(e.name, JSON.stringify(e.attributes ?? {}));
    for (const l of s.links) parts.push(JSON.stringify(l.attributes ?? {}));
  }
  return parts.join('\n');
}

export const scopeOf = (s: ReadableSpan) => s.instrumentationScope.name;
export const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;
