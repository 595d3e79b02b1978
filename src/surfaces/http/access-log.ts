// The access log and per-route latency of every HTTP request, for Express and the lean table alike.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../../log.js';
import type { Surface } from '../registry.js';

/** Told of every answered request, with the registered route (or "unmatched") and its duration. */
export type Observe = (surface: Surface, method: string, route: string, status: number, seconds: number) => void;

const levelOf = (status: number, err?: unknown) => (err || status === 500 ? 'error' : status >= 500 ? 'warn' : 'info');

/**
 * One line per answered request, credentials redacted. Below `info` only failures are logged, and pino-http
 * (a redacted child logger per request, a fifth of a cached check's CPU) is skipped for the rest.
 */
export function accessLog(log: Logger): (req: IncomingMessage, res: ServerResponse) => void {
  // Ids are unique across the lean table and Express (each pino-http instance would count from 1).
  const full = pinoHttp({
    logger: log, quietReqLogger: true, genReqId: () => randomUUID(), customLogLevel: (_req, res, err) => levelOf(res.statusCode, err),
    // The status only: the response headers are the same security headers on every answer, a third of each line.
    serializers: { res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }) },
  });
  return (req, res) => {
    if (log.isLevelEnabled('info')) return full(req, res);
    const started = Date.now();
    res.on('finish', () => {
      if (res.statusCode < 500) return;
      log[levelOf(res.statusCode)]({
        req: { id: randomUUID(), method: req.method, url: req.url, remoteAddress: req.socket.remoteAddress },
        res: { statusCode: res.statusCode }, responseTime: Date.now() - started,
      }, 'request errored');
    });
  };
}

/** Access log and latency of each request; `routeOf` is read once answered. */
export function tracker(surface: Surface, log: Logger, observe: Observe): (req: IncomingMessage, res: ServerResponse, routeOf: () => string) => void {
  const write = accessLog(log);
  return (req, res, routeOf) => {
    write(req, res);
    const started = process.hrtime.bigint();
    res.on('finish', () => observe(surface, req.method ?? 'GET', routeOf(), res.statusCode, Number(process.hrtime.bigint() - started) / 1e9));
  };
}
