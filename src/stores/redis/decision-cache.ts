// The decision cache in Redis: decisions and the epochs that validate them, under the key prefix.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { DecisionStore } from '../ports/decision-cache.js';

const TTL_SECONDS = 300;
/**
 * An object's epoch is a token that never repeats, set with an expiry, so Redis holds one only for objects written
 * lately (a counter per object ever written grew without end). When it expires the stamp reads "0" again, which no
 * token equals, and every decision (300 s) or list (300 s) stamped under an earlier token is gone by then.
 */
const OBJECT_EPOCH_TTL_SECONDS = 3600;

export function redisDecisionStore(redis: Redis, prefix: string): DecisionStore {
  // Spaces separate: ids have none, so a key names one (subject, action, object) whatever the action holds.
  const key = (s: string, a: string, o: string) => `${prefix}:dc:${s} ${a} ${o}`;
  const epoch = (what: string) => `${prefix}:ep:${what}`;
  const struct = `${prefix}:ep:~structure`;
  const typeEpoch = (type: string) => `${prefix}:ep:~type:${type}`;
  const generation = `${prefix}:ep:~generation`;
  return {
    async lookup(s, a, o) {
      const [value, es, eo, est] = await redis.mget(key(s, a, o), epoch(s), epoch(o), struct);
      const stamp = `${es ?? 0}:${eo ?? 0}:${est ?? 0}`;
      return { hit: value && value.slice(2) === stamp ? value[0] === '1' : null, stamp };
    },
    async listStamp(subject, type) {
      const [gen, es, et, est] = await redis.mget(generation, epoch(subject), typeEpoch(type), struct);
      if (gen === null) {
        // A Redis that lost its data starts its epochs again from 0, where an old stamp could match: a new generation tells.
        await redis.set(generation, randomUUID(), 'NX');
        return null;
      }
      return `${gen}:${es ?? 0}:${et ?? 0}:${est ?? 0}`;
    },
    async put(s, a, o, allowed, stamp) {
      await redis.set(key(s, a, o), `${allowed ? 1 : 0}:${stamp}`, 'EX', TTL_SECONDS);
    },
    async bump(objects, types, structure) {
      const multi = redis.multi();
      const token = randomBytes(9).toString('base64url');
      for (const o of objects) multi.set(epoch(o), token, 'EX', OBJECT_EPOCH_TTL_SECONDS);
      for (const t of types) multi.incr(typeEpoch(t));
      if (structure) multi.incr(struct);
      const replies = await multi.exec();
      const failed = replies?.find(([e]) => e);
      if (!replies || failed) throw failed?.[0] ?? new Error('the epoch bump was discarded');
    },
  };
}
