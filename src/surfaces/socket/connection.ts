// One WebSocket with the limits every socket of the service keeps: a bounded send queue and heartbeats.
import { WebSocket } from 'ws';
import { CLOSE } from './messages.js';

export interface ConnectionLimits {
  /** Bytes queued for a client that does not read before it is closed. */
  maxBuffered: number;
  /** A ping each interval; a client that has not answered the previous one is dropped. */
  heartbeatMs: number;
}

export class Connection {
  private alive = true;
  private readonly timer: NodeJS.Timeout;
  closed = false;

  constructor(readonly ws: WebSocket, private readonly limits: ConnectionLimits, onClose: () => void) {
    ws.on('pong', () => {
      this.alive = true;
    });
    this.timer = setInterval(() => {
      if (!this.alive) return void ws.terminate();
      this.alive = false;
      ws.ping();
    }, limits.heartbeatMs);
    this.timer.unref();
    ws.on('close', () => {
      this.closed = true;
      clearInterval(this.timer);
      onClose();
    });
    ws.on('error', () => ws.terminate());
  }

  /**
   * Sends one JSON message; a client whose queue is over the bound is closed instead and nothing more is
   * queued for it, so one that never reads cannot grow the server's memory.
   */
  send(msg: unknown): void {
    if (this.closed || this.ws.readyState !== WebSocket.OPEN) return;
    if (this.ws.bufferedAmount > this.limits.maxBuffered) {
      this.close(CLOSE.slowConsumer, 'send queue full: the client is not reading');
      return;
    }
    this.ws.send(JSON.stringify(msg));
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.ws.close(code, reason);
    // A client that does not read will not read the close frame either.
    setTimeout(() => this.ws.terminate(), 1000).unref();
  }
}
