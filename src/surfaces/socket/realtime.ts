// The realtime socket (contract 4.3, DESIGN.md 6.1): ws on SOCKET_PORT, path /realtime, a client access token on the
// upgrade (Authorization, or from a browser the protocol list); messages go through the pipeline like any call. Its
// first topic is the decision watch.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { AppError } from '../../errors.js';
import type { ClientPrincipal } from '../../services/client-auth.js';
import type { DecisionWatch, Watched } from '../../services/authorization/decision-watch.js';
import { callRequest } from '../http/access-log.js';
import { securityHeaders } from '../http/security-headers.js';
import { clientAddress, headersOf, refuseMalformed, refuseUpgrade, sendJson, type TrustProxy } from '../http/wire.js';
import type { Caller, Pipeline } from '../pipeline.js';
import { selectProtocol, upgradeCredentials } from './browser-credentials.js';
import { isChatMessage } from './chat-messages.js';
import { ChatSession, type ChatSockets } from './chat-session.js';
import { Connection, type ConnectionLimits } from './connection.js';
import { socketError } from './errors.js';
import { CLOSE, clientMessage } from './messages.js';

export interface RealtimeDeps extends ConnectionLimits {
  pipeline: Pipeline;
  watch: DecisionWatch;
  host: string;
  port: number;
  trustProxy: TrustProxy;
  /** How long an idle keep-alive connection is kept (HTTP_KEEP_ALIVE_MS). */
  keepAliveMs: number;
  /** Largest message a client may send (SOCKET_MAX_MESSAGE, at most BODY_LIMIT); larger ones close the socket with 1009. */
  maxMessageBytes: number;
  /** Decision subscriptions one socket may hold. */
  maxSubscriptions: number;
  /** How often a socket asks whether its token was revoked (logout). */
  liveCheckMs: number;
  /** Sockets one user may hold open at once. */
  maxPerUser: number;
  /** The chat module's rooms on this socket, when it is loaded. */
  chat?: ChatSockets;
}

/** Messages of one socket waiting to be handled; a client that sends faster than they are handled is closed. */
const MAX_PENDING = 64;
/** Bytes waiting, in messages of the largest size: four of them. */
const MAX_PENDING_MESSAGES = 4;
/** What upgrades are counted under by the rate limits (every client route is limited per address). */
const UPGRADE_KEY = 'GET /realtime';
/** What each message on an open socket is counted under (router rateLimits can name it). */
const MESSAGE_KEY = 'POST /realtime';

const PATH = '/realtime';
const DECISIONS = 'post_authorization_decisions';

class Session {
  private readonly subs = new Map<string, Array<() => void>>();
  private count = 0;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly chat: ChatSession | null;

  constructor(private readonly deps: RealtimeDeps, private readonly conn: Connection, private readonly caller: Caller & { user: ClientPrincipal }) {
    const { user } = caller;
    this.chat = deps.chat ? new ChatSession(deps.chat, deps.pipeline, conn, caller) : null;
    // The token's own end closes the socket; a logout is noticed at the next liveness check.
    const left = user.expiresAt.getTime() - Date.now();
    this.timers.push(setTimeout(() => conn.close(CLOSE.unauthenticated, 'the access token expired'), Math.max(0, Math.min(left, 2 ** 31 - 1))));
    this.timers.push(setInterval(() => {
      deps.pipeline.userLive(user).catch((e: unknown) => {
        if (e instanceof AppError && e.status === 401) conn.close(CLOSE.unauthenticated, 'the access token was revoked');
      });
    }, deps.liveCheckMs));
    for (const t of this.timers) t.unref();
  }

  end(): void {
    for (const t of this.timers) clearTimeout(t);
    for (const stops of this.subs.values()) for (const stop of stops) stop();
    this.subs.clear();
    this.chat?.end();
  }

  private error(id: string | undefined, e: unknown): void {
    this.conn.send(socketError(this.deps.pipeline.neutral, e, 'socket', { id }).message);
  }

  /** A message refused before it reached a route: logged and counted as a call is (under POST /realtime), then answered. */
  private refused(id: string | undefined, e: unknown, started: number): void {
    this.error(id, this.deps.pipeline.refusedConnection('client', MESSAGE_KEY, this.caller, e, started));
  }

  /**
   * Handles one message. A subscription comes back as `later`: its first answers may wait for a revision (up to FRESHNESS_WAIT_MS),
   * so it runs beside the socket's next messages rather than ahead of them, and stays counted until it ends.
   */
  async onMessage(data: Buffer, isBinary: boolean): Promise<{ later: Promise<void> } | void> {
    if (this.conn.closed) return;
    const started = performance.now();
    // Every message is one call of the client surface, whatever it asks (a subscription's items are charged besides),
    // counted before it is even parsed: a flood costs its sender, not the service.
    try {
      await this.deps.pipeline.enter('socket', 'client', this.caller.ip, MESSAGE_KEY);
    } catch (e) {
      return this.refused(undefined, e, started);
    }
    let parsed: unknown;
    try {
      if (isBinary) throw new Error('binary');
      parsed = JSON.parse(data.toString('utf8'));
    } catch {
      return this.refused(undefined, new AppError('BAD_REQUEST', 'Messages are JSON text'), started);
    }
    const checked = clientMessage.safeParse(parsed);
    if (!checked.success) {
      const id = typeof (parsed as { id?: unknown })?.id === 'string' ? (parsed as { id: string }).id : undefined;
      return this.refused(id, new AppError('VALIDATION_FAILED', 'Unknown or malformed message', checked.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }))),
        started);
    }
    const msg = checked.data;
    if (msg.type === 'ping') return this.conn.send({ type: 'pong' });
    if (isChatMessage(msg)) {
      if (!this.chat) return this.refused(msg.id, new AppError('ROUTE_NOT_FOUND', 'Chat is not loaded on this service'), started);
      return this.chat.handle(msg);
    }
    if (msg.type === 'unsubscribe') {
      const stops = this.subs.get(msg.id);
      if (!stops) return this.refused(msg.id, new AppError('NOT_FOUND', `No subscription ${msg.id}`), started);
      for (const stop of stops) stop();
      this.subs.delete(msg.id);
      this.count -= stops.length;
      return this.conn.send({ type: 'unsubscribed', id: msg.id });
    }
    return { later: this.subscribe(msg.id, { items: msg.items, consistency: msg.consistency, revision: msg.revision }) };
  }

  /** `body`: the decisions route's, so the first answers can be asked at_least_as_fresh as a revision, as over REST. */
  private async subscribe(id: string, body: { items: unknown; consistency: unknown; revision: unknown }): Promise<void> {
    const { items } = body;
    try {
      if (this.subs.has(id)) throw new AppError('VALIDATION_FAILED', `Subscription ${id} exists; unsubscribe first or use another id`);
      const asked = Array.isArray(items) ? items.length : 0;
      if (this.count + asked > this.deps.maxSubscriptions) {
        throw new AppError('SUBSCRIPTION_LIMIT', `A socket holds at most ${this.deps.maxSubscriptions} decision subscriptions (${this.count} held, ${asked} asked)`);
      }
      // Validation, rate limit and the first answers: the decisions route, as over REST.
      this.count += asked; // held while the route runs, so concurrent subscribes cannot pass the cap together
      const placeholder: Array<() => void> = [];
      this.subs.set(id, placeholder);
      let reply;
      try {
        reply = await this.deps.pipeline.call('client', DECISIONS, { body }, this.caller);
      } catch (e) {
        this.count -= asked;
        if (this.subs.get(id) === placeholder) this.subs.delete(id);
        throw e;
      }
      const answers = (reply.body as { items: Array<{ action: string; resource: string; allowed: boolean; revision: number }> }).items;
      // Unsubscribed while its first answers were on their way (the socket reads on meanwhile): it never starts.
      if (this.subs.get(id) !== placeholder) {
        this.count -= asked;
        return;
      }
      if (this.conn.closed) return;
      this.conn.send({ type: 'subscribed', id, items: answers });
      const subject = `User:${this.caller.user.userId}`;
      this.subs.set(id, answers.map((a) => {
        const w: Watched = {
          subject,
          action: a.action,
          resource: a.resource,
          allowed: a.allowed,
          notify: (d) => this.conn.send({ type: 'decision', id, ...d }),
        };
        return this.deps.watch.add(w);
      }));
    } catch (e) {
      this.error(id, e);
    }
  }
}

export class RealtimeTransport {
  private server: Server | null = null;
  private readonly wss: WebSocketServer;
  private readonly connections = new Set<Connection>();
  private readonly perUser = new Map<string, number>();
  private stopping = false;

  constructor(private readonly deps: RealtimeDeps) {
    this.wss = new WebSocketServer({ noServer: true, maxPayload: deps.maxMessageBytes, handleProtocols: selectProtocol });
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const { pipeline } = this.deps;
    const path = (req.url ?? '/').split('?')[0];
    const started = performance.now();
    const ip = clientAddress(this.deps.trustProxy)(req);
    try {
      if (path !== PATH && path !== `${PATH}/`) throw new AppError('ROUTE_NOT_FOUND', `The realtime socket is at ${PATH}`);
      if (this.stopping) throw new AppError('NOT_READY', 'The service is stopping');
      // The gate and the client surface's rate limit, counted before the token is checked.
      await pipeline.enter('socket', 'client', ip, UPGRADE_KEY);
      const headers = upgradeCredentials(headersOf(req));
      const user = await pipeline.user(headers);
      if ((this.perUser.get(user.userId) ?? 0) >= this.deps.maxPerUser) {
        throw new AppError('RATE_LIMITED', `A user holds at most ${this.deps.maxPerUser} sockets at once; close one first`);
      }
      const caller = { transport: 'socket' as const, ip, headers, user };
      this.wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
        if (this.stopping) return void ws.terminate();
        this.open(ws, caller);
      });
    } catch (e) {
      // Logged and counted as a call is: a refused upgrade never reaches a route.
      const caller = { transport: 'socket' as const, ip, headers: {}, request: callRequest(req) };
      refuseUpgrade('client', socket, pipeline.refusedConnection('client', UPGRADE_KEY, caller, e, started));
    }
  }

  private open(ws: WebSocket, caller: Caller & { user: ClientPrincipal }): void {
    const userId = caller.user.userId;
    this.perUser.set(userId, (this.perUser.get(userId) ?? 0) + 1);
    let session: Session | null = null;
    const conn = new Connection(ws, this.deps, () => {
      session?.end();
      this.connections.delete(conn);
      const left = (this.perUser.get(userId) ?? 1) - 1;
      if (left > 0) this.perUser.set(userId, left); else this.perUser.delete(userId);
    });
    session = new Session(this.deps, conn, caller);
    this.connections.add(conn);
    // Messages of one socket are handled in order (a subscription's wait runs beside the next ones), at most MAX_PENDING
    // of them and MAX_PENDING_MESSAGES_BYTES waiting or running:
    // what a socket can make the service hold is bounded in count and in bytes.
    let chain = Promise.resolve();
    let pending = 0;
    let pendingBytes = 0;
    const maxBytes = MAX_PENDING_MESSAGES * this.deps.maxMessageBytes;
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      pendingBytes += data.length;
      if (++pending > MAX_PENDING || pendingBytes > maxBytes) {
        return void conn.close(1008, `more than ${MAX_PENDING} messages or ${maxBytes} bytes waiting: send slower`);
      }
      const done = () => {
        pending--;
        pendingBytes -= data.length;
      };
      chain = chain.then(() => session!.onMessage(data, isBinary))
        .then((r) => {
          if (r) void r.later.finally(done); else done();
        }, done);
    });
  }

  async start(): Promise<number> {
    const server = createServer((req, res) => {
      securityHeaders(req, res);
      sendJson(res, 426, { code: 'BAD_REQUEST', message: `Connect with a WebSocket to ${PATH}` }, { Upgrade: 'websocket' });
    });
    server.keepAliveTimeout = this.deps.keepAliveMs;
    server.on('clientError', refuseMalformed('client'));
    server.on('upgrade', (req, socket, head) => void this.upgrade(req, socket, head));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.deps.port, this.deps.host, () => resolve());
    });
    this.server = server;
    const addr = server.address();
    return typeof addr === 'object' && addr ? addr.port : this.deps.port;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const c of this.connections) c.close(CLOSE.goingAway, 'the service is stopping');
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}
