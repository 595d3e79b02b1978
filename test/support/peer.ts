// Another process's view of a test service's Redis-side ports (leases, partitions, pending re-indexes), on the same
// servers or the same in-memory hub: a test acts through it as a second process would, on either tier.
import { once } from 'node:events';
import type { Stores } from '../../src/stores/ports/stores.js';
import { memoryStores } from '../../src/stores/memory/stores.js';
import type { MemoryBackend } from '../../src/stores/memory/stores.js';

export type Peer = Pick<Stores, 'lease' | 'indexPartitions' | 'reindexState'> & { close(): Promise<void> };

/** On the twins: the service's hub. On the servers: a Redis connection of its own (the service's prefix). */
export async function openPeer(on: { backend: MemoryBackend | null; redisUrl: string; prefix: string }): Promise<Peer> {
  if (on.backend) {
    const stores = memoryStores(on.backend, on.prefix);
    return { lease: stores.lease, indexPartitions: stores.indexPartitions, reindexState: stores.reindexState, close: async () => undefined };
  }
  // Loaded here: a file on the twins never loads the Redis driver.
  const [{ connectRedis, closeRedis }, { redisCoordination }] = await Promise.all([
    import('../../src/stores/redis/connection.js'),
    import('../../src/stores/redis/coordination.js'),
  ]);
  const redis = connectRedis(on.redisUrl);
  // The service's connection fails fast while not ready (no offline queue): a peer's first command waits for it.
  if (redis.status !== 'ready') await once(redis, 'ready');
  return { ...redisCoordination(redis, on.prefix), close: () => closeRedis(redis) };
}
