// Holds index leases from a test, as another process would: every partition and the structure, or the structure only.
import type { Redis } from 'ioredis';

/** Takes the leases (waiting while a unit holds one) and returns a function that gives them back. */
export async function holdIndexLeases(redis: Redis, prefix: string, which: 'all' | 'structure' = 'all', ttlMs = 20_000): Promise<() => Promise<void>> {
  const partitions = Number((await redis.get(`${prefix}:index:partitions`)) ?? 0);
  const keys = [`${prefix}:lease:index:structure`, ...(which === 'all' ? Array.from({ length: partitions }, (_, i) => `${prefix}:lease:index:p${i}`) : [])];
  const held: string[] = [];
  for (const key of keys) {
    for (let i = 0; (await redis.set(key, 'held-by-a-test', 'PX', ttlMs, 'NX')) !== 'OK'; i++) {
      if (i > 500) { await redis.del(...held); throw new Error(`could not take ${key}`); }
      await new Promise((r) => setTimeout(r, 20));
    }
    held.push(key);
  }
  return async () => { await redis.del(...held); };
}
