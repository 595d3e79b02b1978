// The decision cache in memory: decisions and the epochs that validate them, on the shared hub (as the Redis one).
import { randomBytes, randomUUID } from 'node:crypto';
import type { DecisionStore } from '../ports/decision-cache.js';
import type { MemoryHub } from './hub.js';

const TTL_MS = 300_000;
/** An object's epoch is a token that never repeats, kept an hour (src/stores/redis/decision-cache.ts says why). */
const OBJECT_EPOCH_TTL_MS = 3600_000;

export function memoryDecisionStore(hub: MemoryHub, prefix: string): DecisionStore {
  const key = (s: string, a: string, o: string) => `${prefix}:dc:${s} ${a} ${o}`;
  const epoch = (what: string) => `${prefix}:ep:${what}`;
  const struct = `${prefix}:ep:~structure`;
  const typeEpoch = (type: string) => `${prefix}:ep:~type:${type}`;
  const generation = `${prefix}:ep:~generation`;
  return {
    async lookup(s, a, o) {
      const value = hub.get(key(s, a, o));
      const stamp = `${hub.get(epoch(s)) ?? 0}:${hub.get(epoch(o)) ?? 0}:${hub.get(struct) ?? 0}`;
      return { hit: value && value.slice(2) === stamp ? value[0] === '1' : null, stamp };
    },
    async listStamp(subject, type) {
      const gen = hub.get(generation);
      if (gen === null) {
        // A hub that lost its data starts its epochs again from 0, where an old stamp could match: a new generation tells.
        hub.set(generation, randomUUID(), { nx: true });
        return null;
      }
      return `${gen}:${hub.get(epoch(subject)) ?? 0}:${hub.get(typeEpoch(type)) ?? 0}:${hub.get(struct) ?? 0}`;
    },
    async put(s, a, o, allowed, stamp) {
      hub.set(key(s, a, o), `${allowed ? 1 : 0}:${stamp}`, { px: TTL_MS });
    },
    async bump(objects, types, structure) {
      const token = randomBytes(9).toString('base64url');
      for (const o of objects) hub.set(epoch(o), token, { px: OBJECT_EPOCH_TTL_MS });
      for (const t of types) hub.incr(typeEpoch(t));
      if (structure) hub.incr(struct);
    },
  };
}
