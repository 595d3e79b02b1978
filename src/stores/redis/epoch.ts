// A counter in Redis that writers bump after a change, so every process can tell its cached copy is stale.
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
    async bump() { await redis.incr(key); },
  };
}
