// The revision counter in Redis: INCR to take one, a compare-and-raise script to lift it after a loss.
import type { Redis } from 'ioredis';
import type { RevisionCounter } from '../ports.js';

const RAISE = `local v = tonumber(redis.call('GET', KEYS[1]) or '0')
if v < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
return 0`;

export function redisRevisionCounter(redis: Redis, prefix: string): RevisionCounter {
  const key = `${prefix}:revision`;
  return {
    next: () => redis.incr(key),
    async raise(floor) { await redis.eval(RAISE, 1, key, String(floor)); },
    async current() { return Number((await redis.get(key)) ?? 0); },
  };
}
