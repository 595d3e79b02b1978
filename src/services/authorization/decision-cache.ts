// Decision cache in Redis, validated by epochs: a decision stored before a write that could change it is never served after.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { typeOf } from '../../engine/ids.js';
import type { InvalidationBus } from '../../stores/redis/invalidation-bus.js';
import type { LocalDecisions, LocalStamp } from './local-decisions.js';

const TTL_SECONDS = 300;

/** What a fresh decision is stored under: the Redis epochs and this process's local ones. */
export interface Stamp { redis: string; local: LocalStamp }

/**
 * An entry records the epochs of its subject, its object and the index structure it was computed under.
 * Writers bump those epochs after the index is updated and before the write returns; readers read the
 * epochs before asking the index. So an entry computed from an old index carries an old epoch and misses.
 * In front of Redis, each process keeps decisions under local epochs that the bus moves on in every live
 * process before a write returns (see InvalidationBus), so a repeated check answers without a network hop.
 */
export class DecisionCache {
  constructor(private readonly redis: Redis, private readonly prefix: string,
    private readonly local?: { decisions: LocalDecisions; bus: InvalidationBus }) {}

  private key = (s: string, a: string, o: string) => `${this.prefix}:dc:${s}|${a}|${o}`;
  private epoch = (what: string) => `${this.prefix}:ep:${what}`;
  private readonly struct = () => `${this.prefix}:ep:~structure`;
  private typeEpoch = (type: string) => `${this.prefix}:ep:~type:${type}`;
  private generation = () => `${this.prefix}:ep:~generation`;

  /** Returns the cached decision (or null) and a stamp to store a fresh one with. */
  async lookup(s: string, a: string, o: string): Promise<{ hit: boolean | null; stamp: Stamp } | null> {
    const decisions = this.local?.decisions;
    const near = decisions?.get(s, a, o);
    if (near !== undefined) return { hit: near, stamp: { redis: '', local: null } };
    // Taken before Redis is read: an invalidation arriving meanwhile makes the answer unstorable here.
    const local = decisions?.stamp(s, o) ?? null;
    try {
      const [value, es, eo, est] = await this.redis.mget(this.key(s, a, o), this.epoch(s), this.epoch(o), this.struct());
      const stamp = `${es ?? 0}:${eo ?? 0}:${est ?? 0}`;
      if (value && value.slice(2) === stamp) {
        const hit = value[0] === '1';
        decisions?.put(s, a, o, hit, local);
        return { hit, stamp: { redis: stamp, local } };
      }
      return { hit: null, stamp: { redis: stamp, local } };
    } catch {
      return null;
    }
  }

  /**
   * The stamp a list of `type` objects for `subject` is valid under: it changes with the subject's keys,
   * any row of the type, and the structure (flats, definitions, rebuilds). Null when Redis cannot say.
   */
  async listStamp(subject: string, type: string): Promise<string | null> {
    try {
      const [gen, es, et, est] = await this.redis.mget(this.generation(), this.epoch(subject), this.typeEpoch(type), this.struct());
      if (gen === null) {
        // A Redis that lost its data starts its epochs again from 0, where an old stamp could match: a new generation tells.
        await this.redis.set(this.generation(), randomUUID(), 'NX');
        return null;
      }
      return `${gen}:${es ?? 0}:${et ?? 0}:${est ?? 0}`;
    } catch {
      return null;
    }
  }

  async store(s: string, a: string, o: string, allowed: boolean, stamp: Stamp): Promise<void> {
    this.local?.decisions.put(s, a, o, allowed, stamp.local);
    await this.redis.set(this.key(s, a, o), `${allowed ? 1 : 0}:${stamp.redis}`, 'EX', TTL_SECONDS).catch(() => undefined);
  }

  /** Invalidates decisions about these subjects and objects (and lists of their types), and all of them when the structure changed. */
  async bump(objects: Iterable<string>, structure: boolean): Promise<void> {
    const multi = this.redis.multi();
    const unique = new Set(objects);
    for (const o of unique) multi.incr(this.epoch(o));
    for (const t of new Set([...unique].map(typeOf))) multi.incr(this.typeEpoch(t));
    if (structure) multi.incr(this.struct());
    const replies = await multi.exec();
    const failed = replies?.find(([e]) => e);
    if (!replies || failed) throw failed?.[0] ?? new Error('the epoch bump was discarded');
    // Every process drops its local decisions before the write that caused this returns.
    await this.local?.bus.publish({ keys: [...unique], structure });
  }
}
