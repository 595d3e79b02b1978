// Redis connections: one for commands, and BullMQ-style ones (maxRetriesPerRequest: null) for workers.
import { Redis } from 'ioredis';

export function connectRedis(url: string, forWorkers = false): Redis {
  return new Redis(url, {
    lazyConnect: false,
    maxRetriesPerRequest: forWorkers ? null : 2,
    enableOfflineQueue: forWorkers,
    connectTimeout: 5000,
  });
}

/** Closes politely when connected; drops the socket (and its reconnect loop) otherwise. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
  else redis.disconnect();
}

export async function pingRedis(redis: Redis): Promise<void> {
  const answer = await redis.ping();
  if (answer !== 'PONG') throw new Error(`unexpected PING answer ${answer}`);
}
