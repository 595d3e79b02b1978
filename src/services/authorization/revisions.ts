// Which revisions the index has applied: pending work is tracked in a Redis sorted set.
import type { Redis } from 'ioredis';
import { AppError } from '../../errors.js';

const STALE_MS = 120_000;
const WAIT_MS = 5000;

export class Revisions {
  constructor(private readonly redis: Redis, private readonly prefix: string, private readonly current: () => Promise<number>) {}
  private readonly key = () => `${this.prefix}:pending`;

  /** Marks index work for `revision` as under way; entries of crashed processes expire. */
  async begin(revision: number): Promise<void> {
    await this.redis.zadd(this.key(), revision, `${revision}:${Date.now() + STALE_MS}`);
  }
  async end(revision: number): Promise<void> {
    const members = await this.redis.zrangebyscore(this.key(), revision, revision);
    if (members.length) await this.redis.zrem(this.key(), ...members);
  }

  /** The highest revision R such that every change up to R is indexed. */
  async applied(): Promise<number> {
    const current = await this.current();
    const pending = await this.redis.zrange(this.key(), 0, 50);
    const now = Date.now();
    for (const m of pending) {
      const [rev, deadline] = m.split(':').map(Number) as [number, number];
      if (deadline < now) { await this.redis.zrem(this.key(), m); continue; }
      return Math.min(current, rev - 1);
    }
    return current;
  }

  /** Waits until `revision` is applied, at most 5 s, else 503 INDEX_BEHIND. */
  async waitFor(revision: number): Promise<void> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const applied = await this.applied();
      if (applied >= revision) return;
      if (Date.now() > deadline) throw new AppError('INDEX_BEHIND', `The index has applied revision ${applied}, not yet ${revision}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
