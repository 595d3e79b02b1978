// Leases and process heartbeats in memory, on the shared hub: one holder at a time, renewed while held (as the Redis ones).
import { randomUUID } from 'node:crypto';
import { acquireByPolling, type Heartbeat, type Lease } from '../ports/lease.js';
import type { MemoryHub } from './hub.js';

/** A lock shared by every twin on the hub; the holder renews it every third of its time to live, or loses it. */
export class MemoryLease implements Lease {
  private token: string | null = null;
  private renewer: NodeJS.Timeout | null = null;
  /** When the lease was last known to be ours; undefined once a renewal found it taken. */
  private confirmedAt: number | undefined;
  constructor(private readonly hub: MemoryHub, readonly key: string, private readonly ttlMs = 15_000) {}

  async tryAcquire(): Promise<boolean> {
    const token = randomUUID();
    const at = Date.now();
    if (!this.hub.set(this.key, token, { px: this.ttlMs, nx: true })) return false;
    this.token = token;
    this.confirmedAt = at;
    this.renewer = setInterval(() => {
      if (this.token !== token) return;
      const sent = Date.now();
      if (this.hub.get(this.key) === token) {
        this.hub.pexpire(this.key, this.ttlMs);
        this.confirmedAt = Math.max(this.confirmedAt ?? 0, sent);
      } else this.confirmedAt = undefined;
    }, Math.floor(this.ttlMs / 3));
    this.renewer.unref();
    return true;
  }

  held(): boolean {
    return this.token !== null && this.confirmedAt !== undefined && Date.now() - this.confirmedAt < this.ttlMs;
  }

  acquire(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return acquireByPolling(this, timeoutMs, signal);
  }

  async release(): Promise<void> {
    if (this.renewer) clearInterval(this.renewer);
    this.renewer = null;
    // Only the holder's token frees the key: a lease that expired and was taken since stays with its new holder.
    if (this.token !== null && this.hub.get(this.key) === this.token) this.hub.del(this.key);
    this.token = null;
  }
}

/** Marks a process alive while it runs, so others can tell its pending work from a dead process's. */
export class MemoryHeartbeat implements Heartbeat {
  private timer: NodeJS.Timeout | null = null;
  constructor(private readonly hub: MemoryHub, private readonly prefix: string, readonly owner: string, private readonly ttlMs = 10_000) {}
  private key = (owner: string) => `${this.prefix}:alive:${owner}`;

  start(): void {
    const beat = () => { this.hub.set(this.key(this.owner), '1', { px: this.ttlMs }); };
    beat();
    this.timer = setInterval(beat, Math.floor(this.ttlMs / 4));
    this.timer.unref();
  }

  async alive(owners: string[]): Promise<Set<string>> { return new Set(owners.filter((o) => this.hub.get(this.key(o)) !== null)); }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.hub.del(this.key(this.owner));
  }
}
