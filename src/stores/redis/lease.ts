// Leases in Redis: a named lock held by one process at a time, renewed while held, and process heartbeats.
import type { Redis } from 'ioredis';
import type { Heartbeat as HeartbeatPort } from '../ports/lease.js';
import { RenewedLease } from '../ports/renewed-lease.js';

const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;

/**
 * A lock shared by every process on the same Redis. The holder renews it every third of its time to live;
 * a holder that dies stops renewing, so the lock frees itself after `ttlMs`.
 */
export class Lease extends RenewedLease {
  /**
   * A token whose release failed (Redis down). Redis keeps the key across a restart (append-only file), and no one
   * could take the lease until it expired; deleted on the next attempt instead, as the work under it has ended.
   */
  private unreleased: string | null = null;
  constructor(private readonly redis: Redis, key: string, ttlMs = 15_000) {
    super(key, ttlMs);
  }

  protected async setIfAbsent(token: string): Promise<boolean> {
    if (this.unreleased) {
      await this.redis.eval(RELEASE, 1, this.key, this.unreleased);
      this.unreleased = null;
    }
    return (await this.redis.set(this.key, token, 'PX', this.ttlMs, 'NX')) === 'OK';
  }

  protected async renew(token: string): Promise<boolean> {
    return (await this.redis.eval(RENEW, 1, this.key, token, String(this.ttlMs))) === 1;
  }

  protected async free(token: string): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.key, token).catch(() => {
      this.unreleased = token;
    });
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
