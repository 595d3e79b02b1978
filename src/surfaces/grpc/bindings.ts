// The gRPC methods the registry's routes name (`grpc`), each with its translation from grpc/methods.ts and its route.
import type { Route } from '../registry.js';
import { GRPC_METHODS, type Method, type PagedMethod, type UnaryMethod, type WatchMethod } from './methods.js';

type Bound<M> = M & { route: string };
export type BoundUnary = Bound<UnaryMethod>;
export type BoundPaged = Bound<PagedMethod>;
export type BoundMethod = Bound<UnaryMethod> | Bound<PagedMethod> | Bound<WatchMethod>;

/**
 * Every gRPC method by name, bound to the admin route that names it. A route naming a method with no translation, a
 * method named twice, or a translation no route names is a bug: thrown here (at start) and caught first by
 * test/unit/route-mappings.test.ts.
 */
export function grpcBindings(routes: readonly Route[]): Record<string, BoundMethod> {
  const out: Record<string, BoundMethod> = {};
  for (const r of routes) {
    if (r.grpc === undefined) continue;
    const m: Method | undefined = GRPC_METHODS[r.grpc];
    if (!m) throw new Error(`route ${r.id} names the gRPC method ${r.grpc}, which grpc/methods.ts does not translate`);
    if (r.surface !== 'admin') throw new Error(`route ${r.id} names the gRPC method ${r.grpc}, but gRPC serves the admin surface only`);
    if (out[r.grpc]) throw new Error(`the gRPC method ${r.grpc} is named by two routes: ${out[r.grpc]!.route} and ${r.id}`);
    out[r.grpc] = { ...m, route: r.id };
  }
  const unbound = Object.keys(GRPC_METHODS).filter((name) => !out[name]);
  if (unbound.length) throw new Error(`no route names the gRPC methods ${unbound.join(', ')} (set \`grpc\` on the route)`);
  return out;
}
