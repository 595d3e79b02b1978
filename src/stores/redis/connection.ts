// The Redis connection: commands fail fast while Redis is down (no offline queue), so callers answer 503.
import { Redis } from 'ioredis';

export function connectRedis(url: string): Redis {
  return new Redis(url, {
    lazyConnect: false,
    maxRetriesPerRequest: 2,
    enableOfflineQueue: false,
    connectTimeout: 5000,
    // A half-open connection must not hang a request (or the index lease) forever.
    commandTimeout: 5000,
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
