// Realtime socket messages from the decisions route's schema and hostile JSON, sent one at a time, each awaited.
import fc from 'fast-check';
import { WebSocket } from 'ws';
import type { Route } from '../../../src/surfaces/registry.js';
import { intents } from './inputs.js';
import { hostileString, hostileValue } from './values.js';

/** A frame to send: JSON text, or bytes the socket must refuse (binary, text that is not UTF-8, too large). */
export type Frame = { kind: 'text'; data: string } | { kind: 'binary' | 'bad-utf8' | 'oversized'; data: Buffer };

/** Messages: subscribes carrying the decisions route's generated bodies, unsubscribes and pings, anything at all. */
export const socketFrames = (decisions: Route, known: string[]): fc.Arbitrary<Frame> =>
  fc.oneof(
    { weight: 5,
      arbitrary: fc.record({ body: intents(decisions, known).map((i) => i.body), id: fc.oneof(fc.constantFrom('s1', 's2'), hostileValue),
        topic: fc.oneof(fc.constant('decisions'), hostileString) })
        .map(({ body, id, topic }) => ({ kind: 'text' as const,
          data: JSON.stringify({ type: 'subscribe', topic, id, items: (body as { items?: unknown } | undefined)?.items ?? body }) })
        ) },
    { weight: 2, arbitrary: fc.oneof(fc.constantFrom('s1', 's2'), hostileValue).map((id) => ({ kind: 'text' as const, data: JSON.stringify({ type: 'unsubscribe', id }) })) },
    { weight: 1, arbitrary: hostileValue.map((extra) => ({ kind: 'text' as const, data: JSON.stringify({ type: 'ping', extra }) })) },
    { weight: 2, arbitrary: hostileValue.map((v) => ({ kind: 'text' as const, data: JSON.stringify(v) ?? 'undefined' })) },
    { weight: 1, arbitrary: hostileString.map((s) => ({ kind: 'text' as const, data: s })) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => ({ kind: 'binary' as const, data: Buffer.from(b) })) },
    { weight: 1, arbitrary: fc.constant({ kind: 'bad-utf8' as const, data: Buffer.from([0x7b, 0x22, 0xc0, 0xaf, 0xff, 0x22, 0x7d]) }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'oversized' as const, data: Buffer.alloc(2 * 1024 * 1024, 0x20) }) },
  );

/** What one frame got: the next message, or the close code when the socket was closed instead. */
export interface SocketAnswer {
  message?: Record<string, unknown>;
  closed?: number;
  ms: number;
}

/** A socket that sends a frame and waits for its one answer (messages are handled in order, one answer each). */
export class OneAtATime {
  private got: Array<Record<string, unknown>> = [];
  private closed: number | null = null;
  private wake: () => void = () => undefined;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (d) => {
      try {
        this.got.push(JSON.parse(String(d)) as Record<string, unknown>);
      } catch {
        this.got.push({ type: 'not JSON', text: String(d) });
      }
      this.wake();
    });
    ws.on('close', (code) => {
      this.closed = code;
      this.wake();
    });
    ws.on('error', () => undefined);
  }

  static open(url: string, headers: Record<string, string>): Promise<OneAtATime> {
    const ws = new WebSocket(url, { headers });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new OneAtATime(ws)));
      ws.once('error', reject);
    });
  }

  get open(): boolean {
    return this.closed === null;
  }

  async send(f: Frame, timeoutMs: number): Promise<SocketAnswer> {
    const started = performance.now();
    this.got = [];
    if (f.kind === 'text') this.ws.send(f.data);
    else this.ws.send(f.data, { binary: f.kind === 'binary' || f.kind === 'oversized' });
    const deadline = started + timeoutMs;
    // A frame the protocol refuses is answered by the close alone; a message meanwhile is a push from an earlier
    // subscription, and taking it for the answer would blame the close on the next frame.
    const refused = f.kind === 'bad-utf8' || f.kind === 'oversized';
    while ((refused || !this.got.length) && this.closed === null && performance.now() < deadline) {
      await new Promise<void>((r) => {
        this.wake = r;
        setTimeout(r, 20);
      });
    }
    const ms = Math.round(performance.now() - started);
    if (this.got.length && !refused) return { message: this.got.shift()!, ms };
    return this.closed !== null ? { closed: this.closed, ms } : { ms };
  }

  close(): void {
    this.ws.close();
  }
}
