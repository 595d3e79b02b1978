// Mounts registry routes on an express app: auth, strict zod parsing, the error catalog, JSON 404.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pinoHttp } from 'pino-http';
import express, { type ErrorRequestHandler, type Express, type Request, type Response } from 'express';
import { AppError, RateLimited, adminErrorBody, clientErrorBody } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { AdminAuth } from '../../services/admin-auth.js';
import type { ClientAuth } from '../../services/client-auth.js';
import type { RateLimits } from '../../services/rate-limits.js';
import { asAppError, invoke } from '../invoke.js';
import type { Route, Surface } from '../registry.js';

export interface HttpDeps {
  auth: AdminAuth; clientAuth: ClientAuth; limits: RateLimits; log: Logger; bodyLimit: string; trustProxy: boolean | number | string;
  /** Told of every answered request, with the registered route (or "unmatched") and its duration. */
  observe(surface: Surface, method: string, route: string, status: number, seconds: number): void;
}

/** The account name a login is for (rate limits count logins per IP and name). */
function accountOf(req: Request): string {
  const body = (req.body ?? {}) as { email?: unknown; username?: unknown };
  return typeof body.email === 'string' ? body.email : typeof body.username === 'string' ? body.username : '';
}

/** Headers with one value each (the first of repeated ones). */
export const headersOf = (req: IncomingMessage): Record<string, string | undefined> =>
  Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));

/** An AppError as the surface's error body (DESIGN.md section 6), with Retry-After on 429. */
export function errorReply(surface: Surface, e: AppError): { status: number; body: unknown; headers: Record<string, string> } {
  return {
    status: e.status, body: (surface === 'admin' ? adminErrorBody : clientErrorBody)(e),
    headers: e instanceof RateLimited ? { 'Retry-After': String(e.retryAfterSeconds) } : {},
  };
}

export function sendError(surface: Surface, res: Response, e: AppError): void {
  const reply = errorReply(surface, e);
  res.set(reply.headers).status(reply.status).json(reply.body);
}

/**
 * Writes a streamed reply with backpressure. Once the status is sent an error can only cut the answer short,
 * so the connection is destroyed: the client sees a truncated body, never one that looks complete.
 */
async function sendStream(res: Response, pieces: AsyncIterable<string>, log: Logger, label: string): Promise<void> {
  // The first piece is awaited before anything is sent, so a store that is down still gets its error body.
  const it = pieces[Symbol.asyncIterator]();
  let first: IteratorResult<string>;
  try {
    first = await it.next();
  } catch (e) {
    res.removeHeader('Content-Type');
    throw e;
  }
  async function* all() {
    if (first.done) return;
    yield first.value;
    for (let next = await it.next(); !next.done; next = await it.next()) yield next.value;
  }
  await pipeline(Readable.from(all()), res).catch((e: Error) => {
    log.warn({ err: e.message, route: label }, 'streamed answer cut short');
    void it.return?.()?.catch(() => undefined);
  });
}

const levelOf = (status: number, err?: unknown) => (err || status === 500 ? 'error' : status >= 500 ? 'warn' : 'info');

/**
 * The access log of both surfaces (and of the lean routes): one line per answered request, credentials redacted.
 * Below `info` only failures are logged, and pino-http (a redacted child logger per request, a fifth of a cached
 * check's CPU) is skipped for the rest.
 */
export function accessLog(deps: HttpDeps): (req: IncomingMessage, res: ServerResponse) => void {
  // Ids are unique across the lean table and Express (each pino-http instance would count from 1).
  const full = pinoHttp({
    logger: deps.log, quietReqLogger: true, genReqId: () => randomUUID(), customLogLevel: (_req, res, err) => levelOf(res.statusCode, err),
  });
  return (req, res) => {
    if (deps.log.isLevelEnabled('info')) return full(req, res);
    const started = Date.now();
    res.on('finish', () => {
      if (res.statusCode < 500) return;
      deps.log[levelOf(res.statusCode)]({
        req: { id: randomUUID(), method: req.method, url: req.url, remoteAddress: req.socket.remoteAddress },
        res: { statusCode: res.statusCode }, responseTime: Date.now() - started,
      }, 'request errored');
    });
  };
}

/** Access log and per-route latency of each request, for Express and the lean table alike; `routeOf` is read once answered. */
export function tracker(surface: Surface, deps: HttpDeps): (req: IncomingMessage, res: ServerResponse, routeOf: () => string) => void {
  const log = accessLog(deps);
  return (req, res, routeOf) => {
    log(req, res);
    const started = process.hrtime.bigint();
    res.on('finish', () => deps.observe(surface, req.method ?? 'GET', routeOf(), res.statusCode, Number(process.hrtime.bigint() - started) / 1e9));
  };
}

/** `mount` adds handlers that are not registry routes (GraphQL), before the JSON 404. */
export function createHttpApp(surface: Surface, routes: Route[], deps: HttpDeps, mount: Array<(app: Express) => void> = []): Express {
  const app = express();
  app.disable('x-powered-by');
  // No weak ETags: the lean route table answers without them, and the same request must get the same answer.
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.set('trust proxy', deps.trustProxy);
  // Access log (credentials are redacted by the logger) and per-route latency.
  const track = tracker(surface, deps);
  app.use((req, res, next) => {
    track(req, res, () => (req.route as { path?: string } | undefined)?.path ?? 'unmatched');
    next();
  });
  app.use(express.json({ limit: deps.bodyLimit }));
  const send = (res: Response, e: AppError) => sendError(surface, res, e);

  for (const r of routes.filter((x) => x.surface === surface)) {
    const limited = surface === 'client' || r.login === true;
    const routeKey = `${r.method.toUpperCase()} ${r.path}`;
    app[r.method](r.path, async (req: Request, res: Response) => {
      try {
        if (limited) await deps.limits.consume(routeKey, String(req.ip), r.login ? accountOf(req) : undefined);
        const stream = r.streamBody && req.is(r.streamBody) ? req : undefined;
        const reply = await invoke(r, { params: req.params, query: req.query, body: req.body, headers: headersOf(req), stream }, deps);
        for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v);
        res.status(reply.status ?? 200);
        if (reply.stream) await sendStream(res, reply.stream, deps.log, routeKey);
        else if (reply.text !== undefined) {
          if (!res.getHeader('content-type')) res.type('text/plain');
          res.send(reply.text);
        }
        else res.json(reply.body ?? {});
      } catch (e) {
        send(res, asAppError(e, deps.log, routeKey));
      }
    });
  }
  for (const m of mount) m(app);
  app.use((req, res) => send(res, new AppError('ROUTE_NOT_FOUND', `No route ${req.method} ${req.path}`)));
  const onError: ErrorRequestHandler = (err, _req, res, _next) => {
    const type = (err as { type?: string }).type;
    if (type === 'entity.too.large') return void send(res, new AppError('PAYLOAD_TOO_LARGE', `The body exceeds ${deps.bodyLimit}`));
    if (type === 'entity.parse.failed') return void send(res, new AppError('BAD_REQUEST', 'The body is not valid JSON'));
    if (typeof (err as { status?: number }).status === 'number' && (err as { status: number }).status < 500) {
      return void send(res, new AppError('BAD_REQUEST', (err as Error).message));
    }
    deps.log.error({ err }, 'unhandled error');
    send(res, new AppError('INTERNAL'));
  };
  app.use(onError);
  return app;
}
