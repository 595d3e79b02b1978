// The route registry: one description per route feeds REST, MCP tool names and docs.
import type { z } from 'zod';
import type { ErrorCode } from '../errors.js';
import type { AdminPrincipal } from '../services/admin-auth.js';
import type { ClientPrincipal } from '../services/client-auth.js';

export type Surface = 'admin' | 'client';
export type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';
/** none: open; admin: masterkey, admin JWT or API token; user: a client access token (Bearer). */
export type AuthMode = 'none' | 'admin' | 'user';

export interface Reply {
  status?: number; body?: unknown; text?: string; headers?: Record<string, string>;
  /** A body sent piece by piece (large exports); surfaces that cannot stream collect it, bounded. */
  stream?: AsyncIterable<string>;
}

export interface HandlerInput<P, Q, B> {
  params: P; query: Q; body: B; principal: AdminPrincipal | null; user: ClientPrincipal | null;
  headers: Record<string, string | undefined>;
  /** The raw request body, when the route takes `streamBody` and the request came in that content type. */
  stream?: AsyncIterable<Buffer | string>;
}

export interface Route<P = any, Q = any, B = any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  surface: Surface;
  method: Method;
  path: string;
  module: string;
  summary: string;
  auth: AuthMode;
  /** false keeps the route out of the MCP tool list. */
  mcp?: boolean;
  /** A login: rate limited per client IP and account name (every client route is limited per IP anyway). */
  login?: boolean;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** The reply body as clients receive it (JSON unless `produces` says otherwise). */
  output: z.ZodType;
  produces?: string[];
  /** always: 201; when-new: 201, or 200 when it existed already (a repeated write). Else 200. */
  created?: 'always' | 'when-new';
  /** Catalog codes this route answers besides those every route of its kind may (see `errorsOf`). */
  errors?: ErrorCode[];
  /** Served by the lean route table in front of Express (a GET without path parameters that answers JSON). */
  lean?: boolean;
  /** A content type (e.g. application/x-ndjson) whose body is handed over unparsed as `stream`, over HTTP only. */
  streamBody?: string;
  handle(input: HandlerInput<P, Q, B>): Promise<Reply>;
}

export const route = <P, Q, B>(r: Route<P, Q, B>): Route<P, Q, B> => r;

/** Tool name per contract section 4.4: `get_authorization_permissions_can` from GET /authorization/permissions/can. */
export function toolName(method: Method, path: string): string {
  const segments = path.replace(/^\/admin\//, '/').split('/').filter(Boolean)
    .map((s) => (s.startsWith(':') ? s.slice(1) : s).toLowerCase().replace(/[^a-z0-9]/g, ''));
  return [method, ...segments].join('_');
}

/** Every catalog code a route may answer: its own, and those that come with its input, credentials and surface. */
export function errorsOf(r: Route): ErrorCode[] {
  const codes = new Set<ErrorCode>(r.errors ?? []);
  if (r.params || r.query || r.body) codes.add('VALIDATION_FAILED');
  if (r.body) { codes.add('BAD_REQUEST'); codes.add('PAYLOAD_TOO_LARGE'); }
  if (r.auth !== 'none') codes.add('UNAUTHENTICATED');
  if (r.auth === 'user') codes.add('TOKEN_EXPIRED');
  if (r.surface === 'client' || r.login) codes.add('RATE_LIMITED');
  codes.add('STORE_UNAVAILABLE');
  codes.add('INTERNAL');
  return [...codes];
}
