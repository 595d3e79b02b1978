// The change feed over a WebSocket on the admin surface (contract 4.2): ws://admin/authorization/changes?after=N.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { AppError } from '../../errors.js';
import type { Activity } from '../../services/activity.js';
import { FEED_ROUTE, followChanges } from '../follow.js';
import { callRequest } from '../http/access-log.js';
import { clientAddress, headersOf, httpFailure, refuseUpgrade, type TrustProxy } from '../http/wire.js';
import { selectProtocol, upgradeCredentials } from './browser-credentials.js';
import type { Caller, Pipeline } from '../pipeline.js';
import { Connection, type ConnectionLimits } from './connection.js';
import { socketError } from './errors.js';
import { CLOSE } from './messages.js';

export const FEED_PATH = '/authorization/changes';

export interface AdminFeedDeps extends ConnectionLimits {
  pipeline: Pipeline;
  activity: Activity;
  trustProxy: TrustProxy;
}

/** What upgrades of the admin surface at any path but the feed's are logged and counted under. */
const OTHER_PATHS = 'GET (no socket here)';

/** Handles upgrades of the admin HTTP server: the feed at FEED_PATH; false for any other path. */
export function adminFeedSocket(deps: AdminFeedDeps) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024, handleProtocols: selectProtocol });
  const open = new Set<Connection>();

  const { refuse } = httpFailure('admin', deps.pipeline.neutral);

  const follow = (ws: WebSocket, caller: Caller, after: number) => {
    const abort = new AbortController();
    const conn = new Connection(ws, deps, () => {
      abort.abort();
      open.delete(conn);
    });
    open.add(conn);
    void (async () => {
      try {
        for await (const page of followChanges(deps.pipeline, caller, after, deps.activity, abort.signal)) {
          conn.send({ type: 'changes', changes: page.changes, next: page.next });
          if (conn.closed) return;
        }
      } catch (e) {
        const { error, message } = socketError(deps.pipeline.neutral, e, 'admin feed socket');
        conn.send(message);
        conn.close(error.status === 401 ? CLOSE.unauthenticated : 1011, error.code);
      }
    })();
  };

  return {
    upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
      const url = new URL(req.url ?? '/', 'http://admin');
      if (url.pathname !== FEED_PATH) {
        // Logged and counted as a call is: this upgrade never reaches a route (past here the feed's route logs it).
        // Counted under one fixed key, so random paths cannot grow the metrics' label sets.
        const caller = { transport: 'socket' as const, ip: clientAddress(deps.trustProxy)(req), headers: {}, request: callRequest(req) };
        const refused = deps.pipeline.refusedConnection('admin', OTHER_PATHS, caller, new AppError('ROUTE_NOT_FOUND', `WebSockets on this surface: ${FEED_PATH}`),
          performance.now());
        return refuseUpgrade('admin', socket, refused);
      }
      void (async () => {
        try {
          const after = url.searchParams.get('after') ?? '0';
          // A page offers an API token or admin JWT as a protocol entry (never the master key): browser-credentials.ts.
          const headers = upgradeCredentials(headersOf(req));
          // No principal on the caller: each page checks the credentials again, so a revoked token stops the feed.
          const caller: Caller = { transport: 'socket', ip: clientAddress(deps.trustProxy)(req), headers };
          // One small page before the upgrade: the gate, the credentials and `after` checked as the route checks them,
          // so a socket that could not follow is refused with an HTTP answer rather than opened and closed.
          await deps.pipeline.call('admin', FEED_ROUTE, { query: { after, limit: '1' } }, caller);
          wss.handleUpgrade(req, socket, head, (ws) => follow(ws, caller, Number(after)));
        } catch (e) {
          refuse(socket, e, 'admin feed socket');
        }
      })();
    },
    stop(): void {
      for (const c of open) c.close(CLOSE.goingAway, 'the service is stopping');
    },
  };
}
