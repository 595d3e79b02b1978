// The route registry: one description per route feeds REST, GraphQL, MCP, gRPC, the socket and the docs.
import type { z } from 'zod';
import type { ErrorCode } from '../errors.js';
import type { AdminPrincipal } from '../services/admin-auth.js';
import type { ClientPrincipal } from '../services/client-auth.js';
import type { InputLimits } from './input-limits.js';

export type Surface = 'admin' | 'client';
export type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';
/** none: open; admin: masterkey, admin JWT or API token; user: a client access token (Bearer). */
export type AuthMode = 'none' | 'admin' | 'user';

export interface Reply {
  status?: number;
  body?: unknown;
  text?: string;
  headers?: Record<string, string>;
  /** A body sent piece by piece (large exports, files); transports that cannot stream collect it, bounded. */
  stream?: AsyncIterable<string | Uint8Array>;
}

export interface HandlerInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  principal: AdminPrincipal | null;
  user: ClientPrincipal | null;
  headers: Record<string, string | undefined>;
  /** The raw request body, when the route takes `http.streamBody` and the request came in that content type. */
  stream?: AsyncIterable<Buffer | string>;
}

/** How a route is served over HTTP (REST); other transports name routes by id and ignore all of this. */
export interface HttpBinding {
  method: Method;
  path: string;
  /** Served by the lean route table in front of Express (a GET without path parameters that answers JSON). */
  lean?: boolean;
  /** always: 201; when-new: 201, or 200 when it existed already (a repeated write). Else 200. */
  created?: 'always' | 'when-new';
  /** Content types of the reply (JSON unless given). */
  produces?: string[];
  /** The largest JSON body this route reads (`16kb`), below BODY_LIMIT; routes without a body read at most 1 KB. */
  bodyLimit?: string;
  /** A content type (e.g. application/x-ndjson) whose body is handed over unparsed as `stream`. */
  streamBody?: string;
  /** JSON bodies too are handed over unparsed as `stream` (the route reads them itself: a large base64 field, streamed). */
  streamJson?: boolean;
}

export interface Route<P = any, Q = any, B = any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Stable name, unique on its surface: the MCP tool name (`get_authorization_permissions_can`), GraphQL's admin field, gRPC's target. */
  id: string;
  surface: Surface;
  /** The module the route belongs to (for communications, the channel: email, push, sms): its MCP tool group and OpenAPI tag. */
  group: string;
  summary: string;
  auth: AuthMode;
  http: HttpBinding;
  /** What rate limits count calls under, on every transport: "METHOD /path", as the router config names routes. */
  rateKey: string;
  /** false keeps the route out of the MCP tool list. */
  mcp?: boolean;
  /**
   * The gRPC method (proto/authzgraph/v1/authzgraph.proto) that serves this admin route; its request and reply
   * translation is in grpc/methods.ts. test/unit/route-mappings.test.ts checks the three agree.
   */
  grpc?: string;
  /** A login: rate limited per client IP and account name (every client route is limited per IP anyway). */
  login?: boolean;
  /** Rate limited per client IP on the admin surface too: a route anyone may call without credentials. */
  limited?: boolean;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** The reply body as clients receive it (JSON unless `http.produces` says otherwise). */
  output: z.ZodType;
  /** How many calls one call counts as against the rate limit, from its validated input (a batch of N checks: N). */
  cost?(input: { params: P; query: Q; body: B }): number;
  /** What a 413 for input past the general bound adds: where input that large is taken instead. */
  tooLarge?: string;
  /** Input shape limits this route widens or narrows (the pipeline's defaults otherwise). */
  limits?: Partial<InputLimits>;
  /** Catalog codes this route answers besides those every route of its kind may (see `errorsOf`). */
  errors?: ErrorCode[];
  handle(input: HandlerInput<P, Q, B>): Promise<Reply>;
}

export type RouteSpec<P, Q, B> = Omit<Route<P, Q, B>, 'id' | 'rateKey'> & { id?: string };

/** A registry entry, named by the contract's tool rule unless it names itself. */
export const route = <P, Q, B>(r: RouteSpec<P, Q, B>): Route<P, Q, B> => ({ ...r, id: r.id ?? toolName(r.http.method, r.http.path),
  rateKey: `${r.http.method.toUpperCase()} ${r.http.path}` });

/** Tool name per contract section 4.4: `get_authorization_permissions_can` from GET /authorization/permissions/can. */
export function toolName(method: Method, path: string): string {
  const segments = path.replace(/^\/admin\//, '/').split('/').filter(Boolean)
    .map((s) => (s.startsWith(':') ? s.slice(1) : s).toLowerCase().replace(/[^a-z0-9]/g, ''));
  return [method, ...segments].join('_');
}

/** "GET /authorization/check", for logs and messages. */
export const label = (r: Route) => r.rateKey;

/** Whether the pipeline counts calls of this route against a rate limit (every client route, logins, and `limited` routes). */
export const rateLimited = (r: Route) => r.surface === 'client' || r.login === true || r.limited === true;

/** Every catalog code a route may answer: its own, and those that come with its input, credentials and surface. */
export function errorsOf(r: Route): ErrorCode[] {
  const codes = new Set<ErrorCode>(r.errors ?? []);
  if (r.params || r.query || r.body) {
    codes.add('VALIDATION_FAILED');
    codes.add('PAYLOAD_TOO_LARGE');
  }
  if (r.body) codes.add('BAD_REQUEST');
  if (r.auth !== 'none') codes.add('UNAUTHENTICATED');
  // Admin credentials that fail too often from one address are refused for a while.
  if (r.auth === 'admin') codes.add('RATE_LIMITED');
  if (r.auth === 'user') codes.add('TOKEN_EXPIRED');
  if (rateLimited(r)) codes.add('RATE_LIMITED');
  codes.add('STORE_UNAVAILABLE');
  codes.add('INTERNAL');
  return [...codes];
}

/** The registry: every route of every module, looked up by surface and id. Ids are checked unique as routes are added. */
export class Registry {
  private readonly list: Route[] = [];
  private readonly byId = new Map<string, Route>();

  add(...routes: Route[]): void {
    for (const r of routes) {
      const key = `${r.surface} ${r.id}`;
      if (this.byId.has(key)) throw new Error(`two routes named ${r.id} on the ${r.surface} surface`);
      this.byId.set(key, r);
      this.list.push(r);
    }
  }

  all(): readonly Route[] {
    return this.list;
  }
  of(surface: Surface): Route[] {
    return this.list.filter((r) => r.surface === surface);
  }
  groups(): string[] {
    return [...new Set(this.list.map((r) => r.group))];
  }

  /** The route, or an error naming the id: a transport asking for a route that is not registered is a bug. */
  get(surface: Surface, id: string): Route {
    const r = this.byId.get(`${surface} ${id}`);
    if (!r) throw new Error(`no ${surface} route ${id}`);
    return r;
  }
}
