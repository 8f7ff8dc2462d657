// The `surety` command's entry (bin/surety.js): tracing starts first, only when
// OTEL_EXPORTER_OTLP_ENDPOINT is set (loading the OpenTelemetry SDK then and only then), so its
// instrumentations see node:http and Fastify load; then the CLI (telemetry.ts).
import { startTelemetry } from './telemetry.js';

await startTelemetry();
await import('./cli.js');
