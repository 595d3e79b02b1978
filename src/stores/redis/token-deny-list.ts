// Access tokens revoked before their expiry, in Redis until they would have expired anyway.
import type { Redis } from 'ioredis';
import type { TokenDenyList } from '../ports/token-deny-list.js';

export function redisTokenDenyList(redis: Redis, prefix: string): TokenDenyList {
  const key = (id: string) => `${prefix}:deny:${id}`;
  return {
    async deny(id, until) {
      const ms = until.getTime() - Date.now();
      if (ms > 0) await redis.set(key(id), '1', 'PX', ms);
    },
    async denied(ids) {
      return ids.length > 0 && (await redis.exists(...ids.map(key))) > 0;
    },
  };
}
