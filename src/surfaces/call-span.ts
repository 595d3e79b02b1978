// A pipeline call as an OpenTelemetry span named by its route id, child of the W3C `traceparent` the caller sent
// (an HTTP header, gRPC metadata, the socket's upgrade request); store calls made meanwhile become its children.
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, type Tracer } from '@opentelemetry/api';
import { AppError } from '../errors.js';
import type { Route } from './registry.js';

export interface SpanCaller {
  transport: string;
  headers: Record<string, string | undefined>;
}

/** Runs `run` in the call's span; `neutral` turns what it throws into the AppError the span records and rethrows. */
export function inCallSpan<T extends { status?: number }>(tracer: Tracer, r: Route, caller: SpanCaller, run: () => Promise<T>, neutral: (e: unknown) => AppError): Promise<T> {
  // A caller that sent no traceparent continues the active context (none, unless the transport made one).
  const parent = caller.headers.traceparent ? propagation.extract(ROOT_CONTEXT, caller.headers) : context.active();
  return tracer.startActiveSpan(r.id, {
    kind: SpanKind.SERVER,
    attributes: { 'authz.route': r.id, 'authz.surface': r.surface, 'authz.transport': caller.transport, 'authz.rate_key': r.rateKey },
  }, parent, async (span) => {
    try {
      const reply = await run();
      span.setAttribute('authz.status', reply.status ?? 200);
      return reply;
    } catch (e) {
      const err = neutral(e);
      span.setAttributes({ 'authz.status': err.status, 'authz.error_code': err.code });
      if (err.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: err.code });
      throw err;
    } finally {
      span.end();
    }
  });
}
