// Mounts registry routes on an express app: auth, strict zod parsing, the error catalog, JSON 404.
import express, { type ErrorRequestHandler, type Express, type Request, type Response } from 'express';
import { z } from 'zod';
import { AppError, RateLimited, adminErrorBody, clientErrorBody } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { AdminAuth } from '../../services/admin-auth.js';
import type { ClientAuth } from '../../services/client-auth.js';
import type { RateLimits } from '../../services/rate-limits.js';
import type { Route, Surface } from '../registry.js';
import { storeUnavailable } from '../../stores/unavailable.js';
import { unstorable } from './storable.js';

export interface HttpDeps { auth: AdminAuth; clientAuth: ClientAuth; limits: RateLimits; log: Logger; bodyLimit: string }

/** The account name a login is for (rate limits count logins per IP and name). */
function accountOf(req: Request): string {
  const body = (req.body ?? {}) as { email?: unknown; username?: unknown };
  return typeof body.email === 'string' ? body.email : typeof body.username === 'string' ? body.username : '';
}

function parse<T>(schema: z.ZodType<T> | undefined, value: unknown, where: string): T {
  if (!schema) {
    if (value && typeof value === 'object' && Object.keys(value).length > 0) {
      throw new AppError('VALIDATION_FAILED', `This route takes no ${where}`, Object.keys(value).map((k) => ({ path: `${where}.${k}`, message: 'unknown field' })));
    }
    return {} as T;
  }
  const r = schema.safeParse(value ?? {});
  if (r.success) return r.data;
  throw new AppError('VALIDATION_FAILED', `Invalid ${where}`,
    r.error.issues.map((i) => ({ path: [where, ...i.path.map(String)].join('.'), message: i.message })));
}

const header = (req: Request, name: string) => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

export function createHttpApp(surface: Surface, routes: Route[], deps: HttpDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(express.json({ limit: deps.bodyLimit }));
  const errorBody = surface === 'admin' ? adminErrorBody : clientErrorBody;
  const sendError = (res: Response, e: AppError) => {
    if (e instanceof RateLimited) res.setHeader('Retry-After', String(e.retryAfterSeconds));
    res.status(e.status).json(errorBody(e));
  };

  for (const r of routes.filter((x) => x.surface === surface)) {
    const limited = surface === 'client' || r.login === true;
    const routeKey = `${r.method.toUpperCase()} ${r.path}`;
    app[r.method](r.path, async (req: Request, res: Response) => {
      try {
        if (limited) await deps.limits.consume(routeKey, String(req.ip), r.login ? accountOf(req) : undefined);
        const principal = r.auth === 'admin'
          ? await deps.auth.authenticate({ masterkey: header(req, 'masterkey'), authorization: header(req, 'authorization') })
          : null;
        const user = r.auth === 'user' ? await deps.clientAuth.authenticate(header(req, 'authorization')) : null;
        for (const [where, value] of [['params', req.params], ['query', req.query], ['body', req.body]] as const) {
          const bad = unstorable(value, where);
          if (bad) throw new AppError('VALIDATION_FAILED', `Invalid ${where}: ${bad.path} ${bad.message}`, [bad]);
        }
        const params = parse(r.params, req.params, 'params');
        const query = parse(r.query, req.query, 'query');
        const body = parse(r.body, req.body, 'body');
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
        const reply = await r.handle({ params, query, body, principal, user, headers });
        for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v);
        res.status(reply.status ?? 200);
        if (reply.text !== undefined) res.type('text/plain').send(reply.text);
        else res.json(reply.body ?? {});
      } catch (e) {
        if (e instanceof AppError) return void sendError(res, e);
        const store = storeUnavailable(e);
        if (store) {
          deps.log.warn({ err: (e as Error).message, route: `${r.method.toUpperCase()} ${r.path}` }, `${store} unavailable`);
          // A write may have been committed before the outage hit; retrying it is safe (writes are idempotent).
          return void sendError(res, new AppError('STORE_UNAVAILABLE', `${store} is unavailable; retry shortly (writes are safe to retry)`));
        }
        deps.log.error({ err: e, route: `${r.method.toUpperCase()} ${r.path}` }, 'unhandled error');
        sendError(res, new AppError('INTERNAL'));
      }
    });
  }
  app.use((req, res) => sendError(res, new AppError('ROUTE_NOT_FOUND', `No route ${req.method} ${req.path}`)));
  const onError: ErrorRequestHandler = (err, _req, res, _next) => {
    const type = (err as { type?: string }).type;
    if (type === 'entity.too.large') return void sendError(res, new AppError('PAYLOAD_TOO_LARGE', `The body exceeds ${deps.bodyLimit}`));
    if (type === 'entity.parse.failed') return void sendError(res, new AppError('BAD_REQUEST', 'The body is not valid JSON'));
    if (typeof (err as { status?: number }).status === 'number' && (err as { status: number }).status < 500) {
      return void sendError(res, new AppError('BAD_REQUEST', (err as Error).message));
    }
    deps.log.error({ err }, 'unhandled error');
    sendError(res, new AppError('INTERNAL'));
  };
  app.use(onError);
  return app;
}
