// A route table in front of Express for the hottest reads (the checks): the same registry entry, credentials, validation,
// errors, rate limits, metrics and access log, without Express's per-request cost (measured: about 4x the bare handler).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import proxyAddr from 'proxy-addr';
import { AppError } from '../../errors.js';
import { asAppError, invoke } from '../invoke.js';
import type { Route, Surface } from '../registry.js';
import { errorReply, headersOf, tracker, type HttpDeps } from './express-adapter.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => boolean;

/** Express's "trust proxy" semantics for the client address (rate limits count per address). */
function clientAddress(trust: HttpDeps['trustProxy']): (req: IncomingMessage) => string {
  if (trust === false) return (req) => req.socket.remoteAddress ?? '';
  const fn = trust === true ? () => true
    : typeof trust === 'number' ? (_a: string, i: number) => i < trust
      : proxyAddr.compile(trust.split(',').map((s) => s.trim()));
  return (req) => proxyAddr(req, fn);
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** Serves the surface's `lean` routes (GET, no path parameters); answers false for any other request, which Express takes. */
export function leanRoutes(surface: Surface, routes: Route[], deps: HttpDeps): Handler {
  const table = new Map(routes.filter((r) => r.surface === surface && r.lean && r.method === 'get' && !r.path.includes(':')).map((r) => [r.path, r]));
  const track = tracker(surface, deps);
  const address = clientAddress(deps.trustProxy);

  const serve = async (r: Route, req: IncomingMessage, res: ServerResponse, search: string) => {
    track(req, res, () => r.path);
    const routeKey = `GET ${r.path}`;
    try {
      if (surface === 'client') await deps.limits.consume(routeKey, address(req));
      const reply = await invoke(r, { params: {}, query: parseQuery(search), headers: headersOf(req) }, deps);
      if (reply.stream || reply.text !== undefined) throw new AppError('INTERNAL', `${routeKey} is not a JSON route`);
      send(res, reply.status ?? 200, reply.body ?? {}, reply.headers);
    } catch (e) {
      const err = errorReply(surface, asAppError(e, deps.log, routeKey));
      send(res, err.status, err.body, err.headers);
    }
  };

  return (req, res) => {
    // A GET with a body goes to Express, which refuses it as every other route would.
    if (req.method !== 'GET' || table.size === 0 || req.headers['transfer-encoding'] || Number(req.headers['content-length'] ?? 0) > 0) return false;
    const raw = req.url ?? '/';
    const hash = raw.indexOf('#');
    const url = hash < 0 ? raw : raw.slice(0, hash);
    const at = url.indexOf('?');
    const r = table.get(at < 0 ? url : url.slice(0, at));
    if (!r) return false;
    void serve(r, req, res, at < 0 ? '' : url.slice(at + 1));
    return true;
  };
}
