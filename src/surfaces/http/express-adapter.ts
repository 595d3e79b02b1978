// REST: mounts registry routes on an express app and translates requests to the pipeline and replies back.
import { Readable } from 'node:stream';
import { pipeline as pump } from 'node:stream/promises';
import express, { type ErrorRequestHandler, type Express, type Request, type RequestHandler, type Response } from 'express';
import { AppError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { Pipeline } from '../pipeline.js';
import { label, type Surface } from '../registry.js';
import { callRequest, tracker, type Observe } from './access-log.js';
import { headersOf, httpFailure, type TrustProxy } from './wire.js';

export interface HttpDeps {
  pipeline: Pipeline;
  log: Logger;
  bodyLimit: string;
  /**
   * How long an idle keep-alive connection is kept (HTTP_KEEP_ALIVE_MS). Node advertises it in `Keep-Alive: timeout=`
   * and keeps the socket a second longer, so a client that honours the header never reuses a socket being closed.
   */
  keepAliveMs: number;
  trustProxy: TrustProxy;
  observe: Observe;
}

/**
 * Writes a streamed reply with backpressure. Once the status is sent an error can only cut the answer short,
 * so the connection is destroyed: the client sees a truncated body, never one that looks complete.
 */
async function sendStream(res: Response, pieces: AsyncIterable<string | Uint8Array>, log: Logger, where: string): Promise<void> {
  // The first piece is awaited before anything is sent, so a store that is down still gets its error body.
  const it = pieces[Symbol.asyncIterator]();
  let first: IteratorResult<string | Uint8Array>;
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
  await pump(Readable.from(all()), res).catch((e: Error) => {
    log.warn({ err: e.message, route: where }, 'streamed answer cut short');
    void it.return?.()?.catch(() => undefined);
  });
}

/** Past this much of a refused body left to drop, the connection is closed instead. */
const DRAIN_MAX_BYTES = 64 * 1024 * 1024;

/**
 * A streamed body as the route reads it, and what is left of it read and dropped once the answer is out, so the
 * connection serves its next request. A route that refuses an upload midway stops reading; if that destroyed the
 * request, Node would stop reading the socket with the rest of the body on it, and if it only left it, Node would not
 * drop it (it does for a body nobody began to read): either way the next request a keep-alive client sent waited
 * behind those bytes forever (the hostile corpus's upload, unanswered after 10 s). Closing the connection instead
 * would reset a client still sending, before it read the answer.
 */
function readThenDrain(req: Request, res: Response): AsyncIterable<Buffer> {
  const socket = req.socket;
  res.once('finish', () => {
    if (req.readableEnded || req.destroyed) return;
    let dropped = 0;
    req.removeAllListeners('readable'); // a left reader's; while one listens, the stream does not flow
    req.removeAllListeners('data');
    req.on('data', (chunk: Buffer) => {
      if ((dropped += chunk.length) > DRAIN_MAX_BYTES) socket.destroy();
    });
    req.resume();
  });
  return req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>;
}

/** What a route without a body schema reads: enough for an empty `{}`, nothing to speak of. */
const NO_BODY_LIMIT = '1kb';

/** `mount` adds handlers that are not registry routes (GraphQL, MCP), before the JSON 404. */
export function createHttpApp(surface: Surface, deps: HttpDeps, mount: Array<(app: Express) => void> = []): Express {
  const { pipeline } = deps;
  const app = express();
  app.disable('x-powered-by');
  // No weak ETags: the lean route table answers without them, and the same request must get the same answer.
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.set('trust proxy', deps.trustProxy);
  // Access log (credentials are redacted by the logger) and per-route latency.
  const track = tracker(surface, deps.log, deps.observe);
  app.use((req, res, next) => {
    track(req, res, () => (req.route as { path?: string } | undefined)?.path ?? 'unmatched');
    next();
  });
  const { send } = httpFailure(surface, pipeline.neutral);
  // Each route reads at most its own body limit: a route that takes no body reads almost none (a stray body is refused).
  const parsers = new Map<string, ReturnType<typeof express.json>>();
  const parser = (limit: string) => parsers.get(limit) ?? parsers.set(limit, express.json({ limit })).get(limit)!;

  for (const r of pipeline.registry.of(surface)) {
    const limit = r.http.bodyLimit ?? (r.body ? deps.bodyLimit : NO_BODY_LIMIT);
    const streamed = (req: Request) => Boolean((r.http.streamBody && req.is(r.http.streamBody)) || (r.http.streamJson && req.is('application/json')));
    const body: RequestHandler = (req, res, next) => (streamed(req) ? next() : parser(limit)(req, res, next));
    app[r.http.method](r.http.path, body, async (req: Request, res: Response) => {
      try {
        const stream = streamed(req) ? readThenDrain(req, res) : undefined;
        const reply = await pipeline.invoke(r, { params: req.params, query: req.query, body: req.body, stream }, { transport: 'rest', ip: String(req.ip), headers: headersOf(req),
          bounded: true, request: callRequest(req) });
        for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v);
        res.status(reply.status ?? 200);
        if (reply.stream) await sendStream(res, reply.stream, deps.log, label(r));
        else if (reply.text !== undefined) {
          if (!res.getHeader('content-type')) res.type('text/plain');
          res.send(reply.text);
        }
        else res.json(reply.body ?? {});
      } catch (e) {
        send(res, e, label(r));
      }
    });
  }
  // GraphQL and the tool server read JSON up to BODY_LIMIT; a path nothing serves reads no body before its 404.
  app.use(['/graphql', '/mcp'], parser(deps.bodyLimit));
  for (const m of mount) m(app);
  app.use((req, res) => send(res, new AppError('ROUTE_NOT_FOUND', `No route ${req.method} ${req.path}`), 'unmatched'));
  const onError: ErrorRequestHandler = (err, req, res, _next) => {
    const type = (err as { type?: string }).type;
    const where = `${req.method} ${req.path}`;
    if (type === 'entity.too.large') return void send(res, new AppError('PAYLOAD_TOO_LARGE', `The body exceeds ${(err as { limit: number }).limit} bytes`), where);
    if (type === 'entity.parse.failed') return void send(res, new AppError('BAD_REQUEST', 'The body is not valid JSON'), where);
    if (typeof (err as { status?: number }).status === 'number' && (err as { status: number }).status < 500) {
      return void send(res, new AppError('BAD_REQUEST', (err as Error).message), where);
    }
    send(res, err, where);
  };
  app.use(onError);
  return app;
}
