// The number of index partitions in memory: fixed on the shared hub by the first process (as the Redis one).
import type { MemoryHub } from './hub.js';

/** The partition count in force: `wanted` if none was fixed yet, else the one fixed before. */
export async function memoryFixedPartitions(hub: MemoryHub, prefix: string, wanted: number): Promise<number> {
  const key = `${prefix}:index:partitions`;
  hub.set(key, String(wanted), { nx: true });
  const now = Number(hub.get(key));
  return Number.isInteger(now) && now > 0 ? now : wanted;
}
