// Leases in Redis: a named lock held by one process at a time, renewed while held, and process heartbeats.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { acquireByPolling, type Heartbeat as HeartbeatPort, type Lease as LeasePort } from '../ports/lease.js';

const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;

/**
 * A lock shared by every process on the same Redis. The holder renews it every third of its time to live;
 * a holder that dies stops renewing, so the lock frees itself after `ttlMs`.
 */
export class Lease implements LeasePort {
  private token: string | null = null;
  private renewer: NodeJS.Timeout | null = null;
  /** When the lease was last known to be ours (acquired or renewed); undefined once a renewal found it taken. */
  private confirmedAt: number | undefined;
  /**
   * A token whose release failed (Redis down). Redis keeps the key across a restart (append-only file), and no one
   * could take the lease until it expired; deleted on the next attempt instead, as the work under it has ended.
   */
  private unreleased: string | null = null;
  constructor(private readonly redis: Redis, readonly key: string, private readonly ttlMs = 15_000) {}

  /** One attempt; true when this process now holds the lease. */
  async tryAcquire(): Promise<boolean> {
    if (this.unreleased) {
      await this.redis.eval(RELEASE, 1, this.key, this.unreleased);
      this.unreleased = null;
    }
    const token = randomUUID();
    const at = Date.now();
    if ((await this.redis.set(this.key, token, 'PX', this.ttlMs, 'NX')) !== 'OK') return false;
    this.token = token;
    this.confirmedAt = at;
    this.renewer = setInterval(() => {
      const sent = Date.now();
      void this.redis.eval(RENEW, 1, this.key, token, String(this.ttlMs)).then((r) => {
        if (this.token !== token) return;
        if (r === 1) this.confirmedAt = Math.max(this.confirmedAt ?? 0, sent);
        else this.confirmedAt = undefined;
      }, () => undefined);
    }, Math.floor(this.ttlMs / 3));
    this.renewer.unref();
    return true;
  }

  /**
   * Whether the lease is still ours: no renewal found it taken, and the last confirmation is younger than its
   * time to live. False means another process may have held it meanwhile; work done under it must be redone.
   */
  held(): boolean {
    return this.token !== null && this.confirmedAt !== undefined && Date.now() - this.confirmedAt < this.ttlMs;
  }

  /** Waits for the lease, polling; gives up after `timeoutMs`. */
  acquire(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return acquireByPolling(this, timeoutMs, signal);
  }

  async release(): Promise<void> {
    if (this.renewer) clearInterval(this.renewer);
    this.renewer = null;
    const token = this.token;
    this.token = null;
    if (token) await this.redis.eval(RELEASE, 1, this.key, token).catch(() => { this.unreleased = token; });
  }
}

/** Marks a process alive while it runs, so others can tell its pending work from a dead process's. */
export class Heartbeat implements HeartbeatPort {
  private timer: NodeJS.Timeout | null = null;
  constructor(private readonly redis: Redis, private readonly prefix: string, readonly owner: string, private readonly ttlMs = 10_000) {}
  private key = (owner: string) => `${this.prefix}:alive:${owner}`;

  start(): void {
    const beat = () => void this.redis.set(this.key(this.owner), '1', 'PX', this.ttlMs).catch(() => undefined);
    beat();
    this.timer = setInterval(beat, Math.floor(this.ttlMs / 4));
    this.timer.unref();
  }
  async alive(owners: string[]): Promise<Set<string>> {
    if (owners.length === 0) return new Set();
    const values = await this.redis.mget(...owners.map(this.key));
    return new Set(owners.filter((_, i) => values[i] !== null));
  }
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.redis.del(this.key(this.owner)).catch(() => undefined);
  }
}
