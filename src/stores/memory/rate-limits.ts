// Rate-limit counters in memory, on the shared hub: fixed windows per (bucket, key), as rate-limiter-flexible counts in Redis.
import type { RateCounter } from '../ports/rate-limits.js';
import type { MemoryHub } from './hub.js';

export function memoryRateCounter(hub: MemoryHub, prefix: string): RateCounter {
  return {
    async take(name, max, windowMs, who, points = 1) {
      // The window is whole seconds, and begins with the first take; refused takes count too (as the Redis limiter's).
      const key = `${prefix}:rl:${name} ${max}/${windowMs}:${who}`;
      hub.set(key, '0', { px: Math.ceil(windowMs / 1000) * 1000, nx: true });
      const consumed = hub.incr(key, points);
      return consumed > max ? Math.max(0, hub.pttl(key)) : null;
    },
  };
}
