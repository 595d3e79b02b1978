// OpenTelemetry tracing, off unless an OTLP endpoint is configured: only then is the SDK loaded (a dynamic import)
// and registered, so a service without one runs no tracing code at all. Everything else imports @opentelemetry/api.
import { context, propagation, trace, type Tracer } from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Config } from './config.js';
import { VERSION } from './root.js';

export interface Tracing {
  tracer: Tracer;
  /** Sends what is buffered and unregisters the SDK (a later start in the same process registers again). */
  stop(): Promise<void>;
}

type TracingConfig = Pick<Config, 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' | 'OTEL_SERVICE_NAME'>;

/** Where spans go: the traces URL as given, or `/v1/traces` under the endpoint (the OTLP/HTTP convention). */
export function tracesUrl(c: TracingConfig): string | null {
  if (c.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return c.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (!c.OTEL_EXPORTER_OTLP_ENDPOINT) return null;
  return new URL('v1/traces', c.OTEL_EXPORTER_OTLP_ENDPOINT.endsWith('/') ? c.OTEL_EXPORTER_OTLP_ENDPOINT : `${c.OTEL_EXPORTER_OTLP_ENDPOINT}/`).href;
}

/**
 * Starts tracing when an endpoint is configured, or `exporter` is given (tests pass an in-memory one, which gets
 * each span as it ends); otherwise null, and nothing is registered. Registering sets the W3C trace-context
 * propagator and an AsyncLocalStorage context manager, so store calls see the call they run in as their parent.
 */
export async function startTracing(c: TracingConfig, exporter?: SpanExporter): Promise<Tracing | null> {
  const url = tracesUrl(c);
  if (!url && !exporter) return null;
  const { NodeTracerProvider, BatchSpanProcessor, SimpleSpanProcessor } = await import('@opentelemetry/sdk-trace-node');
  const { resourceFromAttributes } = await import('@opentelemetry/resources');
  const processor = exporter
    ? new SimpleSpanProcessor(exporter)
    : new BatchSpanProcessor(new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter({ url: url! }));
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': c.OTEL_SERVICE_NAME, 'service.version': VERSION }),
    spanProcessors: [processor],
  });
  provider.register();
  return {
    tracer: provider.getTracer('authz-graph', VERSION),
    async stop() {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
