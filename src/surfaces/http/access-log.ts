// The HTTP side of the access log and per-route latency, for Express and the lean table alike. A request that made
// pipeline calls was logged by them (observe.ts: one line per call); this logs only the requests that made none (a
// 404, a body that is not JSON, a GraphQL document that asked no route, an MCP tools/list), so no request is logged twice.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../log.js';
import { levelOf, messageOf, type CallRequest } from '../observe.js';
import type { Surface } from '../registry.js';

/** Told of every answered request, with the registered route (or "unmatched") and its duration. */
export type Observe = (surface: Surface, method: string, route: string, status: number, seconds: number) => void;

const CALL = Symbol('call request');
type Tracked = IncomingMessage & { [CALL]?: CallRequest };

/** The request as its calls see it: one id per HTTP request, shared by the access log and every call it makes. */
export function callRequest(req: IncomingMessage): CallRequest {
  const t = req as Tracked;
  return (t[CALL] ??= { id: randomUUID(), method: req.method, url: req.url });
}

/** Latency of each request; its access-log line unless a call logged it. `routeOf` is read once answered. */
export function tracker(surface: Surface, log: Logger, observe: Observe): (req: IncomingMessage, res: ServerResponse, routeOf: () => string) => void {
  return (req, res, routeOf) => {
    const request = callRequest(req);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      observe(surface, req.method ?? 'GET', routeOf(), res.statusCode, seconds);
      const level = levelOf(res.statusCode);
      if (request.logged || !log.isLevelEnabled(level)) return;
      log[level]({
        req: { id: request.id, method: request.method, url: request.url, remoteAddress: req.socket.remoteAddress, headers: req.headers },
        // The status only: the response headers are the same security headers on every answer, a third of each line.
        res: { statusCode: res.statusCode },
        responseTime: Math.round(seconds * 1e6) / 1e3,
      }, messageOf(res.statusCode));
    });
  };
}
