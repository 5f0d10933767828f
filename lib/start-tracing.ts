/**
 * Tracing on (lib/tracing.ts): with OTEL_EXPORTER_OTLP_ENDPOINT set, a tracer provider whose spans go in
 * batches over OTLP/HTTP (the exporter reads OTEL_EXPORTER_OTLP_ENDPOINT, adding /v1/traces, and
 * OTEL_EXPORTER_OTLP_HEADERS itself), W3C traceparent in and out, and the request-aware context manager.
 * Unset: nothing is registered and every span is the API's no-op.
 */
import { propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { env } from './env';
import { installContextManager } from './tracing';

/** Returns what flushes and stops the exporter (call it on shutdown), or undefined when tracing is off. */
export function startTracing(role: 'web' | 'worker'): (() => Promise<void>) | undefined {
  const { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: serviceName } = env();
  if (!endpoint) return undefined;
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName, 'chargeport.role': role }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
  });
  installContextManager();
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return () => provider.shutdown();
}
