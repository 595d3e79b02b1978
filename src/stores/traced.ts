// Store calls as child spans of the call that makes them: one proxy over the stores bag, applied in the composition
// only when tracing is on, so no adapter knows about tracing and an untraced service pays nothing.
import { SpanKind, SpanStatusCode, context, trace, type Span, type Tracer } from '@opentelemetry/api';

/** Entries that are not ports: lifecycle, probes and constants. */
const UNTRACED = new Set(['close', 'probes', 'systemCollections', 'tuneDatabase']);

const thenable = (v: unknown): v is PromiseLike<unknown> => typeof (v as { then?: unknown } | null)?.then === 'function';
const plain = (v: unknown): v is object => typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;

function failed(span: Span, e: unknown): void {
  span.recordException(e instanceof Error ? e : String(e));
  span.setStatus({ code: SpanStatusCode.ERROR, message: e instanceof Error ? e.message : String(e) });
}

/**
 * Runs `fn` in a span named `name` when a recording span is active (a pipeline call), else as it is: background work
 * (the index applier, leases, heartbeats) makes no traces of its own. A promise's span ends when it settles; an
 * iterable's when it is returned (its pages are the caller's business).
 */
function spanned(tracer: Tracer, name: string, fn: () => unknown): unknown {
  if (!trace.getActiveSpan()?.isRecording()) return fn();
  const span = tracer.startSpan(name, { kind: SpanKind.CLIENT });
  let out: unknown;
  try {
    out = context.with(trace.setSpan(context.active(), span), fn);
  } catch (e) {
    failed(span, e);
    span.end();
    throw e;
  }
  if (!thenable(out)) {
    span.end();
    return out;
  }
  return Promise.resolve(out).then((v) => {
    span.end();
    return v;
  }, (e: unknown) => {
    failed(span, e);
    span.end();
    throw e;
  });
}

/** `port` with each method call spanned as `name.method`; nested plain objects (grouped ports) likewise. */
function port<T extends object>(tracer: Tracer, name: string, target: T): T {
  const nested = new Map<string, unknown>();
  return new Proxy(target, {
    get(t, prop) {
      // Read on the target itself: adapters with private fields fail when read through a proxy.
      const value: unknown = Reflect.get(t, prop, t);
      if (typeof prop !== 'string' || prop === 'constructor') return value;
      if (plain(value)) {
        if (!nested.has(prop)) nested.set(prop, port(tracer, `${name}.${prop}`, value));
        return nested.get(prop);
      }
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => spanned(tracer, `${name}.${prop}`, () => (value as (...a: unknown[]) => unknown).apply(t, args));
    },
  });
}

/** The stores bag with every port's calls spanned; factories (`lease(name)`, `epoch(name)`) hand out spanned ports. */
export function tracedStores<S extends object>(stores: S, tracer: Tracer): S {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(stores)) {
    if (UNTRACED.has(key) || value instanceof Set || value instanceof Map) out[key] = value;
    else if (typeof value === 'function') {
      out[key] = (...args: unknown[]) => {
        const made: unknown = (value as (...a: unknown[]) => unknown)(...args);
        return typeof made === 'object' && made !== null && !thenable(made) ? port(tracer, key, made) : made;
      };
    } else if (typeof value === 'object' && value !== null) out[key] = port(tracer, key, value);
    else out[key] = value;
  }
  return out as S;
}
