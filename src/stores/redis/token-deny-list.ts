// Access tokens revoked before their expiry: in Redis until they would have expired, mirrored in each process.
import type { Redis } from 'ioredis';
import type { TokenDenyList } from '../ports.js';

/**
 * Every authenticated client call asks this list, so each process keeps a copy fed by pub/sub and answers
 * without a round trip. The copy is trusted only while the subscription is up and was filled after it
 * started (subscribe, then scan: nothing denied in between is missed); otherwise the list asks Redis.
 */
export function redisTokenDenyList(redis: Redis, prefix: string): TokenDenyList & { close(): void } {
  const key = (id: string) => `${prefix}:deny:${id}`;
  const channel = `${prefix}:deny`;
  const local = new Map<string, number>();
  let synced = false;
  let closed = false;
  const sub = redis.duplicate({ enableOfflineQueue: true, commandTimeout: undefined });
  sub.on('error', () => undefined); // the main connection reports outages
  sub.on('close', () => { synced = false; });
  sub.on('message', (_channel: string, message: string) => {
    const [until, id] = [Number(message.slice(0, message.indexOf(' '))), message.slice(message.indexOf(' ') + 1)];
    if (Number.isFinite(until)) local.set(id, until);
  });
  sub.on('ready', () => void resync());

  async function resync() {
    try {
      await sub.subscribe(channel);
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', key('*'), 'COUNT', 1000);
        cursor = next;
        if (keys.length) {
          const ttls = await redis.pipeline(keys.map((k) => ['pttl', k])).exec();
          keys.forEach((k, i) => {
            const ttl = Number(ttls?.[i]?.[1]);
            if (ttl > 0) local.set(k.slice(key('').length), Date.now() + ttl);
          });
        }
      } while (cursor !== '0');
      synced = !closed && sub.status === 'ready';
    } catch {
      synced = false;
    }
  }

  return {
    async deny(id, until) {
      const ms = until.getTime() - Date.now();
      if (ms <= 0) return;
      await redis.set(key(id), '1', 'PX', ms);
      if (local.size > 10_000) for (const [k, t] of local) if (t <= Date.now()) local.delete(k);
      local.set(id, until.getTime());
      await redis.publish(channel, `${until.getTime()} ${id}`);
    },
    async denied(ids) {
      if (ids.length === 0) return false;
      if (!synced) return (await redis.exists(...ids.map(key))) > 0;
      const now = Date.now();
      return ids.some((id) => {
        const until = local.get(id);
        if (until === undefined) return false;
        if (until > now) return true;
        local.delete(id);
        return false;
      });
    },
    close() {
      closed = true;
      synced = false;
      sub.disconnect();
    },
  };
}
