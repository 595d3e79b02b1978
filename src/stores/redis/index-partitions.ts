// The number of index partitions, fixed by the first process on a Redis: every process must split work the same way.
import type { Redis } from 'ioredis';

/** The partition count in force: `wanted` if none was fixed yet, else the one fixed before. */
export async function fixedPartitions(redis: Redis, prefix: string, wanted: number): Promise<number> {
  const key = `${prefix}:index:partitions`;
  try {
    await redis.set(key, String(wanted), 'NX');
    const now = Number(await redis.get(key));
    return Number.isInteger(now) && now > 0 ? now : wanted;
  } catch {
    // Redis down at start: no unit runs until it is back (the leases live there), and then with the configured number.
    return wanted;
  }
}
