// Realtime sockets for the soak: one per client user, subscribing and unsubscribing decisions, some closed and opened again.
import { WebSocket } from 'ws';

export interface SocketUser {
  id: string;
  access: string;
}

interface Sock {
  user: SocketUser;
  ws: WebSocket;
  /** Subscription ids live on this socket, oldest first. */
  subs: string[];
  waiting: Map<string, (m: Record<string, unknown>) => void>;
  /** One request at a time per socket: the server closes a client with more than 64 messages waiting. */
  busy: boolean;
  /** Closed by us (a reconnect), not by the server. */
  leaving: boolean;
}

export interface SocketResult {
  route: string;
  status: string;
}

const WAIT_MS = 10_000;
/** Live subscriptions a socket keeps before it unsubscribes its oldest: the total stays bounded. */
const KEEP = 10;

export class SocketPool {
  private readonly socks: Sock[] = [];
  private next = 0;
  /** Decisions pushed (flips caused by the soak's writes). */
  decisions = 0;
  /** Closes the server initiated, by close code (4001: the token expired; reopened with a fresh one). */
  readonly closes: Record<string, number> = {};

  constructor(private readonly url: string, private readonly resources: () => string) {}

  async open(user: SocketUser): Promise<void> {
    this.socks.push(await this.connect(user));
  }

  private connect(user: SocketUser): Promise<Sock> {
    const ws = new WebSocket(this.url, { headers: { authorization: `Bearer ${user.access}` } });
    const s: Sock = { user, ws, subs: [], waiting: new Map(), busy: false, leaving: false };
    ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as Record<string, unknown>;
      if (m.type === 'decision') {
        this.decisions++;
        return;
      }
      const id = typeof m.id === 'string' ? m.id : '';
      s.waiting.get(id)?.(m);
    });
    ws.on('close', (code) => {
      for (const w of s.waiting.values()) w({ type: 'closed', code });
      if (s.leaving) return;
      this.closes[code] = (this.closes[code] ?? 0) + 1;
      // Replaced in place, so the pool keeps its size; a failed reopen is counted by the next operation on it.
      const i = this.socks.indexOf(s);
      if (i >= 0) {
        void this.connect(s.user).then((n) => {
          this.socks[i] = n;
        }, () => undefined);
      }
    });
    ws.on('error', () => undefined); // 'close' follows
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(s));
      ws.once('unexpected-response', (_q, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
      ws.once('error', reject);
    });
  }

  private pick(): Sock | undefined {
    for (let k = 0; k < this.socks.length; k++) {
      const s = this.socks[(this.next++) % this.socks.length]!;
      if (!s.busy && s.ws.readyState === WebSocket.OPEN) return s;
    }
    return undefined;
  }

  /** Sends one message and waits for the answer naming `id`. */
  private ask(s: Sock, id: string, message: unknown): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        s.waiting.delete(id);
        resolve({ type: 'timeout' });
      }, WAIT_MS);
      s.waiting.set(id, (m) => {
        clearTimeout(timer);
        s.waiting.delete(id);
        resolve(m);
      });
      s.ws.send(JSON.stringify(message));
    });
  }

  /** Subscribes five decisions, or unsubscribes the oldest subscription once the socket holds KEEP. Undefined: every socket busy. */
  async churnSubscriptions(serial: number): Promise<SocketResult | undefined> {
    const s = this.pick();
    if (!s) return undefined;
    s.busy = true;
    try {
      if (s.subs.length >= KEEP) {
        const id = s.subs.shift()!;
        const m = await this.ask(s, id, { type: 'unsubscribe', id });
        return { route: 'socket unsubscribe', status: m.type === 'unsubscribed' ? 'ok' : String(m.code ?? m.type) };
      }
      const id = `k${serial}`;
      const items = Array.from({ length: 5 }, () => ({ action: 'read', resource: this.resources() }));
      const m = await this.ask(s, id, { type: 'subscribe', topic: 'decisions', id, items });
      if (m.type === 'subscribed') s.subs.push(id);
      return { route: 'socket subscribe', status: m.type === 'subscribed' ? 'ok' : String(m.code ?? m.type) };
    } finally {
      s.busy = false;
    }
  }

  /** Closes a socket and opens another for the same user with its newest access token. */
  async reconnect(): Promise<SocketResult | undefined> {
    const s = this.pick();
    if (!s) return undefined;
    s.busy = true;
    s.leaving = true;
    const closed = new Promise((r) => s.ws.once('close', r));
    s.ws.close();
    await closed;
    const i = this.socks.indexOf(s);
    try {
      this.socks[i] = await this.connect(s.user);
      return { route: 'socket reconnect', status: 'ok' };
    } catch (e) {
      s.busy = false;
      s.leaving = false;
      // Keep a slot that reconnects later rather than shrinking the pool.
      void this.connect(s.user).then((n) => {
        this.socks[i] = n;
      }, () => undefined);
      return { route: 'socket reconnect', status: (e as Error).message };
    }
  }

  close(): void {
    for (const s of this.socks) {
      s.leaving = true;
      s.ws.close();
    }
  }
}
