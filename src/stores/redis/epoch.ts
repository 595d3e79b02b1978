// A value in Redis that writers change after a change, so every process can tell its cached copy is stale.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Epoch } from '../ports/epoch.js';

export function redisEpoch(redis: Redis, key: string): Epoch {
  return {
    async read() {
      try {
        return (await redis.get(key)) ?? '0';
      } catch {
        return null;
      }
    },
    // A new token, not a count: a counter restarts at 0 when Redis loses its data and comes back to values processes
    // cached before, which would then pass for current.
    async bump() {
      await redis.set(key, randomUUID());
    },
  };
}
