// Leases and process heartbeats in memory, on the shared hub: one holder at a time, renewed while held (as the Redis ones).
import type { Heartbeat } from '../ports/lease.js';
import { RenewedLease } from '../ports/renewed-lease.js';
import type { MemoryHub } from './hub.js';

/** A lock shared by every twin on the hub; the holder renews it every third of its time to live, or loses it. */
export class MemoryLease extends RenewedLease {
  constructor(private readonly hub: MemoryHub, key: string, ttlMs = 15_000) {
    super(key, ttlMs);
  }

  protected async setIfAbsent(token: string): Promise<boolean> {
    return this.hub.set(this.key, token, { px: this.ttlMs, nx: true });
  }

  protected async renew(token: string): Promise<boolean> {
    if (this.hub.get(this.key) !== token) return false;
    this.hub.pexpire(this.key, this.ttlMs);
    return true;
  }

  protected async free(token: string): Promise<void> {
    if (this.hub.get(this.key) === token) this.hub.del(this.key);
  }
}

/** Marks a process alive while it runs, so others can tell its pending work from a dead process's. */
export class MemoryHeartbeat implements Heartbeat {
  private timer: NodeJS.Timeout | null = null;
  constructor(private readonly hub: MemoryHub, private readonly prefix: string, readonly owner: string, private readonly ttlMs = 10_000) {}
  private key = (owner: string) => `${this.prefix}:alive:${owner}`;

  start(): void {
    const beat = () => {
      this.hub.set(this.key(this.owner), '1', { px: this.ttlMs });
    };
    beat();
    this.timer = setInterval(beat, Math.floor(this.ttlMs / 4));
    this.timer.unref();
  }

  async alive(owners: string[]): Promise<Set<string>> {
    return new Set(owners.filter((o) => this.hub.get(this.key(o)) !== null));
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.hub.del(this.key(this.owner));
  }
}
