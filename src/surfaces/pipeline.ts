// The one pipeline every call of every transport goes through: gate, rate limit, credentials, input limits and
// validation, the handler, the reply check, and one neutral error (an AppError) that each transport maps once; each
// call's access-log line, metrics and span are written here too, whatever the transport.
import type { Tracer } from '@opentelemetry/api';
import type { z } from 'zod';
import { bytesOf } from '../config.js';
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';
import { RepeatedWarnings } from '../log-repeats.js';
import type { AdminAuth, AdminPrincipal } from '../services/admin-auth.js';
import type { ClientAuth, ClientPrincipal } from '../services/client-auth.js';
import type { RateLimits } from '../services/rate-limits.js';
import { storeUnavailable } from '../stores/unavailable.js';
import { inCallSpan } from './call-span.js';
import { label, rateLimited, type Registry, type Reply, type Route, type Surface } from './registry.js';
import { checkShape, type InputLimits } from './input-limits.js';
import { observeCall, type CallMetrics, type CallRequest } from './observe.js';
import { unstorable } from './storable.js';

export type Transport = 'rest' | 'graphql' | 'mcp' | 'grpc' | 'socket';

/** Who calls, through what. A transport that authenticates once per connection or request passes the result. */
export interface Caller {
  transport: Transport;
  /** The client's address, as rate limits count it. */
  ip: string;
  headers: Record<string, string | undefined>;
  principal?: AdminPrincipal;
  user?: ClientPrincipal;
  /** The transport's own parser bounded the input already (HTTP bodies); otherwise the pipeline measures it. */
  bounded?: boolean;
  /** The request the call came in with (its id in the access log); one is made per call when none is given. */
  request?: CallRequest;
  /** Calls a follower repeats while it waits (the change feed's pages): their access-log lines are debug unless they fail. */
  quiet?: boolean;
}

export interface RawInput {
  params?: unknown;
  query?: unknown;
  body?: unknown;
  /** The unparsed body of a `http.streamBody` route (the body is then not parsed). */
  stream?: AsyncIterable<Buffer | string>;
}

export interface PipelineDeps {
  auth: AdminAuth;
  clientAuth: ClientAuth;
  limits: RateLimits;
  log: Logger;
  /** Largest input a call may carry, counted as JSON text, where the transport did not bound it. */
  maxInputBytes: number;
  /** Strings, arrays, keys and depth of every input (a route may widen them: `Route.limits`). */
  inputLimits: InputLimits;
  /** Whether a transport is switched on (config core.transports); REST always is. */
  enabled(transport: Transport): boolean;
  /** Checks every JSON reply against its route's registered output (a mismatch is a 500); on in tests. */
  checkReplies?: boolean;
  /** Calls counted per route, transport and outcome. */
  metrics?: CallMetrics;
  /** Set only when tracing is on: each call is then a span (no tracing code runs otherwise). */
  tracer?: Tracer | null;
}

const GATES: Partial<Record<Transport, string>> = { graphql: 'GraphQL', mcp: 'The tool server', grpc: 'gRPC', socket: 'The realtime socket' };
/**
 * Transports that take an admin JWT or API token only (contract 5: the tool server is for agents and CI, the
 * masterkey for people at a terminal), and what they answer a caller who sent none.
 */
const BEARER_ONLY: Partial<Record<Transport, string>> = { mcp: 'Send Authorization: Bearer <admin JWT or API token>' };

function parse<T>(schema: z.ZodType<T> | undefined, value: unknown, where: string): T {
  if (!schema) {
    if (value && typeof value === 'object' && Object.keys(value).length > 0) {
      throw new AppError('VALIDATION_FAILED', `This route takes no ${where}`, Object.keys(value).map((k) => ({ path: `${where}.${k}`, message: 'unknown field' })));
    }
    return {} as T;
  }
  const r = schema.safeParse(value ?? {});
  if (r.success) return r.data;
  const details = r.error.issues.map((i) => ({ path: [where, ...i.path.map(String)].join('.'), message: i.message }));
  // The first problem in the message too: the client surface's error body carries no details.
  const more = details.length > 1 ? ` (and ${details.length - 1} more)` : '';
  throw new AppError('VALIDATION_FAILED', `Invalid ${where}: ${details[0]!.path} ${details[0]!.message}${more}`, details);
}

/** The account name a login is for, from its validated body (limits count logins per IP and name). */
const accountOf = (body: unknown) => {
  const b = (body ?? {}) as { email?: unknown; username?: unknown };
  return typeof b.email === 'string' ? b.email : typeof b.username === 'string' ? b.username : '';
};

export class Pipeline {
  /** A store's outage warned once in a while, not at every call it fails (each call's access-log line says it failed). */
  private readonly outages: RepeatedWarnings;

  constructor(readonly registry: Registry, private readonly deps: PipelineDeps) {
    this.outages = new RepeatedWarnings(deps.log);
  }

  get log(): Logger {
    return this.deps.log;
  }

  /** Refuses a transport that is switched off as if nothing were there (404 ROUTE_NOT_FOUND). */
  admit(transport: Transport): void {
    const name = GATES[transport];
    if (name && !this.deps.enabled(transport)) throw new AppError('ROUTE_NOT_FOUND', `${name} is off (config core.transports.${transport})`);
  }

  /**
   * A request that carries many calls (a GraphQL document) enters once: the transport's gate, and on the client
   * surface one count against `rateKey`, besides what each of its calls is charged.
   */
  async enter(transport: Transport, surface: Surface, ip: string, rateKey: string): Promise<void> {
    try {
      this.admit(transport);
      if (surface === 'client') await this.deps.limits.consume(rateKey, ip);
    } catch (e) {
      throw this.neutral(e, rateKey);
    }
  }

  /**
   * Credentials checked once for a connection or a request that makes many calls (GraphQL, MCP, gRPC, the socket),
   * as `transport` takes them.
   */
  async admin(headers: Caller['headers'], ip: string, transport?: Transport): Promise<AdminPrincipal> {
    try {
      const bearer = transport && BEARER_ONLY[transport];
      if (bearer && !headers.authorization) throw new AppError('UNAUTHENTICATED', bearer);
      return await this.authenticateAdmin(bearer ? { authorization: headers.authorization } : headers, ip);
    } catch (e) {
      throw this.neutral(e, 'authentication');
    }
  }

  /**
   * Admin credentials, with failures counted per address: past the limit an address is refused (429) before its
   * credentials are even looked at, so guessing costs the guesser, not the service.
   */
  private async authenticateAdmin(headers: Caller['headers'], ip: string): Promise<AdminPrincipal> {
    const { auth, limits } = this.deps;
    await limits.admitAuthentication(ip);
    try {
      return await auth.authenticate({ masterkey: headers.masterkey, authorization: headers.authorization });
    } catch (e) {
      if (e instanceof AppError && e.status === 401) await limits.failedAuthentication(ip);
      throw e;
    }
  }

  async user(headers: Caller['headers']): Promise<ClientPrincipal> {
    try {
      return await this.deps.clientAuth.authenticate(headers.authorization);
    } catch (e) {
      throw this.neutral(e, 'authentication');
    }
  }

  /** Whether a user's token is still live (not logged out): long connections ask again now and then. */
  async userLive(user: ClientPrincipal): Promise<void> {
    try {
      await this.deps.clientAuth.live(user);
    } catch (e) {
      throw this.neutral(e, 'authentication');
    }
  }

  /**
   * A connection refused before it reached a route (a socket upgrade: a wrong path, no gate, no credentials, over its
   * limit): the same access-log line and metrics as a call, under `key` (`GET /realtime`), the error as its outcome.
   * Returns the catalog error the transport answers with.
   */
  refusedConnection(surface: Surface, key: string, c: Pick<Caller, 'transport' | 'ip' | 'headers' | 'request'>, e: unknown, started: number): AppError {
    const err = this.neutral(e, key);
    observeCall(this.deps.log, this.deps.metrics, {
      route: { surface, id: key },
      ...c,
      status: err.status,
      outcome: err.code,
      seconds: (performance.now() - started) / 1e3,
    });
    return err;
  }

  /** Runs the route `id` of `surface`. */
  call(surface: Surface, id: string, raw: RawInput, caller: Caller): Promise<Reply> {
    return this.invoke(this.registry.get(surface, id), raw, caller);
  }

  /** Runs one route for one caller, logged, counted and (when tracing is on) traced; throws only AppErrors. */
  async invoke(r: Route, raw: RawInput, caller: Caller): Promise<Reply> {
    const started = performance.now();
    const { tracer } = this.deps;
    try {
      const reply = tracer
        ? await inCallSpan(tracer, r, caller, () => this.run(r, raw, caller), (e) => this.neutral(e, label(r)))
        : await this.run(r, raw, caller);
      this.observe(r, caller, reply.status ?? 200, 'ok', started);
      return reply;
    } catch (e) {
      const err = this.neutral(e, label(r));
      this.observe(r, caller, err.status, err.code, started);
      throw err;
    }
  }

  private observe(route: Route, caller: Caller, status: number, outcome: string, started: number): void {
    const { transport, ip, headers, request, quiet } = caller;
    observeCall(this.deps.log, this.deps.metrics, { route, transport, ip, headers, request, quiet, status, outcome, seconds: (performance.now() - started) / 1e3 });
  }

  private async run(r: Route, raw: RawInput, caller: Caller): Promise<Reply> {
    this.admit(caller.transport);
    const { limits, clientAuth } = this.deps;
    // Counted first, so refused and malformed calls cost their sender too; a login counts per account once its body is read.
    if (rateLimited(r) && !r.login) await limits.consume(r.rateKey, caller.ip);
    // Credentials before the input is read: a caller without them learns nothing about what a route takes.
    const principal = r.auth === 'admin'
      ? caller.principal ?? await this.authenticateAdmin(caller.headers, caller.ip)
      : null;
    const user = r.auth === 'user' ? caller.user ?? await clientAuth.verify(caller.headers.authorization) : null;
    // A route's own body limit holds on every transport; the general one where the transport's parser did not apply it.
    if (r.http.bodyLimit) this.measure(raw, bytesOf(r.http.bodyLimit), r.tooLarge);
    else if (!caller.bounded) this.measure(raw, this.deps.maxInputBytes, r.tooLarge);
    const shape = r.limits ? { ...this.deps.inputLimits, ...r.limits } : this.deps.inputLimits;
    for (const [where, value] of [['params', raw.params], ['query', raw.query], ['body', raw.body]] as const) {
      checkShape(value, where, shape);
      const bad = unstorable(value, where);
      if (bad) throw new AppError('VALIDATION_FAILED', `Invalid ${where}: ${bad.path} ${bad.message}`, [bad]);
    }
    const params = parse(r.params, raw.params, 'params');
    const query = parse(r.query, raw.query, 'query');
    const body = raw.stream ? undefined as never : parse(r.body, raw.body, 'body');
    if (r.login) await limits.consume(r.rateKey, caller.ip, accountOf(body));
    else if (r.cost && rateLimited(r)) await limits.charge(r.rateKey, caller.ip, r.cost({ params, query, body }) - 1);
    // Whether the token was revoked is asked of Redis on every call (a transport that passes `user` asked already,
    // for this request or, on long connections, lately). A read runs meanwhile and its answer is held until the
    // token is known to be live; a change waits for that before it starts.
    const live = user && !caller.user ? clientAuth.live(user) : null;
    live?.catch(() => undefined); // awaited below; this only keeps an early rejection from counting as unhandled
    if (live && r.http.method !== 'get') await live;
    const outcome = r.handle({ params, query, body, principal, user, headers: caller.headers, stream: raw.stream })
      .then((reply) => ({ reply }), (error: unknown) => ({ error }));
    if (live) await live;
    const done = await outcome;
    if ('error' in done) throw done.error;
    if (this.deps.checkReplies) conforms(r, done.reply);
    return done.reply;
  }

  /** Input size as JSON text, for transports whose parser does not bound it (each of their messages is bounded too). */
  private measure(raw: RawInput, max: number, instead?: string): void {
    const size = Buffer.byteLength(JSON.stringify([raw.params ?? null, raw.query ?? null, raw.body ?? null]));
    if (size > max) throw new AppError('PAYLOAD_TOO_LARGE', `The input exceeds ${max} bytes${instead ? `; ${instead}` : ''}`);
  }

  /**
   * The catalog error for anything thrown: store outages are 503 (retry is safe), the rest is logged as a bug. Each
   * transport's one error mapping starts here (http/wire.ts, socket/errors.ts, grpc/status.ts, graphql/errors.ts, MCP).
   */
  readonly neutral = (e: unknown, where: string): AppError => {
    if (e instanceof AppError) return e;
    const store = storeUnavailable(e);
    if (store) {
      this.outages.warn({ err: (e as Error).message, route: where }, `${store} unavailable`);
      // A write may have been committed before the outage hit; retrying it is safe (writes are idempotent).
      return new AppError('STORE_UNAVAILABLE', `${store} is unavailable; retry shortly (writes are safe to retry)`);
    }
    this.deps.log.error({ err: e, route: where }, 'unhandled error');
    return new AppError('INTERNAL');
  };
}

/** Throws when a JSON reply, as the client will read it, does not match the route's registered output. */
function conforms(r: Route, reply: Reply): void {
  if (reply.stream || reply.text !== undefined) return;
  const sent: unknown = JSON.parse(JSON.stringify(reply.body ?? {}));
  const checked = r.output.safeParse(sent);
  if (!checked.success) {
    const where = checked.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
    throw new Error(`${label(r)} replied outside its registered output: ${where}`);
  }
}

/** A streamed reply in one piece, for transports that answer whole (MCP, GraphQL, gRPC unary); refused past `max` bytes. */
export async function collected(reply: Reply, max = 32 * 1024 * 1024): Promise<Reply> {
  if (!reply.stream) return reply;
  const parts: Buffer[] = [];
  let size = 0;
  for await (const piece of reply.stream) {
    const buf = typeof piece === 'string' ? Buffer.from(piece) : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    size += buf.length;
    if (size > max) throw new AppError('PAYLOAD_TOO_LARGE', `The answer exceeds ${max} bytes here; ask the HTTP route, which streams it`);
    parts.push(buf);
  }
  const text = Buffer.concat(parts).toString('utf8');
  const type = reply.headers?.['Content-Type'] ?? reply.headers?.['content-type'] ?? '';
  return type.startsWith('application/json') ? { ...reply, stream: undefined, body: JSON.parse(text) } : { ...reply, stream: undefined, text };
}
