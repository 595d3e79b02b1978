// What every pipeline call tells, whatever its transport: one access-log line (credentials redacted by the logger)
// and, per route, transport and outcome, a Prometheus counter and latency histogram.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log.js';
import type { Route } from './registry.js';

/**
 * The request a call came in with: an HTTP request (shared by the calls of one GraphQL or MCP request), a gRPC call,
 * a socket message. `logged` tells the HTTP access log that a call wrote the request's line already.
 */
export interface CallRequest {
  id: string;
  method?: string;
  url?: string;
  logged?: boolean;
}

/** Counts calls: `outcome` is `ok` or the catalog code of the error answered. */
export interface CallMetrics {
  call(surface: string, route: string, transport: string, outcome: string, seconds: number): void;
}

export interface ObservedCall {
  /** The route, or for a connection refused before any route (a socket upgrade) the key it is counted under. */
  route: Pick<Route, 'surface' | 'id'>;
  transport: string;
  ip: string;
  headers: Record<string, string | undefined>;
  request?: CallRequest;
  status: number;
  outcome: string;
  seconds: number;
  /** A call a follower repeats while it waits (a feed page a second): logged at debug unless it failed. */
  quiet?: boolean;
}

/** pino levels by status, as the HTTP access log has always logged them: a 500 is a bug, other 5xx an outage. */
export const levelOf = (status: number) => (status === 500 ? 'error' : status >= 500 ? 'warn' : 'info');
export const messageOf = (status: number) => (status >= 500 ? 'request errored' : 'request completed');

/** One line and the metrics for one call; below `info` only failures are logged (the line is then skipped unbuilt). */
export function observeCall(log: Logger, metrics: CallMetrics | undefined, c: ObservedCall): void {
  const { route: r, request } = c;
  metrics?.call(r.surface, r.id, c.transport, c.outcome, c.seconds);
  if (request) request.logged = true;
  const level = c.quiet && c.status < 400 ? 'debug' : levelOf(c.status);
  if (!log.isLevelEnabled(level)) return;
  log[level]({
    // A socket's messages share its upgrade's headers: logged once per message they would let one client turn small
    // messages into lines of up to 16 KB each.
    req: { id: request?.id ?? randomUUID(), method: request?.method, url: request?.url, remoteAddress: c.ip, ...(c.transport === 'socket' ? {} : { headers: c.headers }) },
    res: { statusCode: c.status },
    route: r.id,
    surface: r.surface,
    transport: c.transport,
    outcome: c.outcome,
    responseTime: Math.round(c.seconds * 1e6) / 1e3,
  }, messageOf(c.status));
}
