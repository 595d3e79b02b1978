// HTTP's side of the neutral error and of requests: headers, the client's address and the error body, written once for
// every HTTP-borne transport (REST, the fast path, GraphQL, MCP, the socket's upgrade).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import proxyAddr from 'proxy-addr';
import { AppError, RangeNotSatisfiable, RateLimited, adminErrorBody, clientErrorBody } from '../../errors.js';
import type { Surface } from '../registry.js';

/** Anything thrown as the catalog error: the pipeline's `neutral` (store outages 503, the rest logged as a bug). */
export type Neutral = (e: unknown, where: string) => AppError;

/** HTTP's one error mapping, for every HTTP-borne transport: anything thrown, answered as the surface's error body. */
export interface HttpFailure {
  send(res: ServerResponse, e: unknown, where: string): void;
  /** Before a WebSocket upgrade: the answer on the bare socket. */
  refuse(socket: Duplex, e: unknown, where: string): void;
}

export type TrustProxy = boolean | number | string;

/** Headers with one value each (the first of repeated ones). */
export const headersOf = (req: IncomingMessage): Record<string, string | undefined> =>
  Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));

/** Express's "trust proxy" semantics for the client address (rate limits count per address). */
export function clientAddress(trust: TrustProxy): (req: IncomingMessage) => string {
  if (trust === false) return (req) => req.socket.remoteAddress ?? '';
  const fn = trust === true ? () => true
    : typeof trust === 'number' ? (_a: string, i: number) => i < trust
    : proxyAddr.compile(trust.split(',').map((s) => s.trim()));
  return (req) => proxyAddr(req, fn);
}

/** An AppError as the surface's error body (DESIGN.md section 6), with Retry-After on 429 and Content-Range on 416. */
export function errorReply(surface: Surface, e: AppError): { status: number; body: unknown; headers: Record<string, string> } {
  return {
    status: e.status,
    body: (surface === 'admin' ? adminErrorBody : clientErrorBody)(e),
    headers: e instanceof RateLimited ? { 'Retry-After': String(e.retryAfterSeconds) }
      : e instanceof RangeNotSatisfiable ? { 'Content-Range': `bytes */${e.size}` } : {},
  };
}

/** Writes a JSON answer on a bare response. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendError(surface: Surface, res: ServerResponse, e: AppError): void {
  const reply = errorReply(surface, e);
  sendJson(res, reply.status, reply.body, reply.headers);
}

export function httpFailure(surface: Surface, neutral: Neutral): HttpFailure {
  return {
    send: (res, e, where) => sendError(surface, res, neutral(e, where)),
    refuse: (socket, e, where) => refuseUpgrade(surface, socket, neutral(e, where)),
  };
}

/** Refuses a WebSocket upgrade with an HTTP answer carrying the surface's error body. */
export function refuseUpgrade(surface: Surface, socket: Duplex, e: AppError): void {
  const reply = errorReply(surface, e);
  const body = JSON.stringify(reply.body);
  const extra = Object.entries(reply.headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  socket.end(`HTTP/1.1 ${reply.status} ${e.code}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`
    + `X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n${extra}Connection: close\r\n\r\n${body}`);
}

/**
 * A server's `clientError` handler: a request Node cannot parse (a request line or headers past its 16 KB, bytes
 * that are not HTTP) gets the surface's error body instead of Node's bare answer; a connection already gone is dropped.
 */
export function refuseMalformed(surface: Surface): (err: NodeJS.ErrnoException, socket: Duplex) => void {
  return (err, socket) => {
    if (!socket.writable || err.code === 'ECONNRESET' || err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return void socket.destroy();
    refuseUpgrade(surface, socket, err.code === 'HPE_HEADER_OVERFLOW'
      ? new AppError('HEADERS_TOO_LARGE', 'The request line or headers exceed 16 KB')
      : new AppError('BAD_REQUEST', 'The request is not valid HTTP'));
  };
}
