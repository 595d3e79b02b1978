// Rate-limit counters in Redis (shared by every process), with an in-memory stand-in while Redis is down.
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateCounter } from '../ports/rate-limits.js';

export function redisRateCounter(redis: Redis, prefix: string): RateCounter {
  const limiters = new Map<string, RateLimiterRedis>();
  const limiterOf = (name: string, max: number, windowMs: number): RateLimiterRedis => {
    const key = `${name} ${max}/${windowMs}`;
    let limiter = limiters.get(key);
    if (!limiter) {
      const duration = Math.ceil(windowMs / 1000);
      limiter = new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `${prefix}:rl:${key}`,
        points: max,
        duration,
        // Redis down: each process counts on its own rather than refusing everyone or letting everyone through.
        insuranceLimiter: new RateLimiterMemory({ points: max, duration }),
      });
      limiters.set(key, limiter);
    }
    return limiter;
  };
  return {
    async take(name, max, windowMs, who, points = 1) {
      const limiter = limiterOf(name, max, windowMs);
      try {
        await limiter.consume(who, points);
        return null;
      } catch (e) {
        if (e instanceof RateLimiterRes) return e.msBeforeNext;
        throw e;
      }
    },
  };
}
