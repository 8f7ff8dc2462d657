// OpenTelemetry tracing for the service (docs/observability.md). Off unless
// OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set: then the SDK packages are
// loaded (never before: they are dependencies of this app only, imported here lazily) and configured
// from the standard OTEL_* variables, read by the SDK itself: the exporter's endpoint, headers,
// timeout and compression; OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL (http/protobuf, the default, or
// http/json); OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES; OTEL_TRACES_SAMPLER(_ARG); OTEL_BSP_*.
// OTEL_SDK_DISABLED=true turns it off. HTTP server spans come from @opentelemetry/instrumentation-http
// and Fastify's from @fastify/otel: no hand-written hooks. Must run before Fastify is loaded, so
// bin/surety.js starts it before importing the CLI.

/** What a started SDK hands back. */
export interface Telemetry {
  /** Flushes the spans still queued and stops exporting. */
  shutdown(): Promise<void>;
}

let running: Telemetry | undefined;

/** Requests the service answers for machines, not worth a trace each. */
const UNTRACED = new Set(['/metrics', '/healthz', '/readyz']);

/** The exporter protocol the environment asks for; undefined for one this service does not ship. */
export function otlpProtocol(env: NodeJS.ProcessEnv): 'http/protobuf' | 'http/json' | undefined {
  const asked = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf')
    .trim()
    .toLowerCase();
  return asked === 'http/protobuf' || asked === 'http/json' ? asked : undefined;
}

/** Whether the environment turns tracing on. */
export function tracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Starts the SDK when the environment asks for it; resolves to undefined (and loads nothing) when
 * it does not. Throws for a protocol other than http/protobuf or http/json (grpc is not shipped).
 */
export async function startTelemetry(env: NodeJS.ProcessEnv = process.env): Promise<Telemetry | undefined> {
  if (running !== undefined || !tracingConfigured(env)) return running;
  const protocol = otlpProtocol(env);
  if (protocol === undefined) {
    throw new Error(
      'OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (this service does not ship grpc)',
    );
  }
  const [sdk, resources, exporters, http, fastifyOtel, instrumentation] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/resources'),
    protocol === 'http/json'
      ? import('@opentelemetry/exporter-trace-otlp-http')
      : import('@opentelemetry/exporter-trace-otlp-proto'),
    import('@opentelemetry/instrumentation-http'),
    import('@fastify/otel'),
    import('@opentelemetry/instrumentation'),
  ]);
  // The service's name and version unless OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES say otherwise.
  const resource = resources
    .resourceFromAttributes({ 'service.name': 'surety', 'service.version': '0.1.0' })
    .merge(resources.detectResources({ detectors: [resources.envDetector, resources.processDetector] }));
  const provider = new sdk.NodeTracerProvider({
    resource,
    spanProcessors: [new sdk.BatchSpanProcessor(new exporters.OTLPTraceExporter())],
  });
  provider.register(); // the AsyncLocalStorage context manager and the W3C trace-context propagator
  const FastifyOtel = fastifyOtel.FastifyOtelInstrumentation;
  const unregister = instrumentation.registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new http.HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED.has((request.url ?? '').split('?')[0]!),
        // The OTLP exporter's own requests are suppressed by the SDK; nothing else goes out over node:http.
      }),
      new FastifyOtel({
        registerOnInitialization: true,
        ignorePaths: (r) => UNTRACED.has(r.url.split('?')[0]!),
      }),
    ],
  });
  running = {
    async shutdown() {
      running = undefined;
      unregister();
      await provider.shutdown();
    },
  };
  return running;
}

/** Flushes and stops the SDK if it was started; a no-op otherwise. */
export async function shutdownTelemetry(): Promise<void> {
  await running?.shutdown();
}
