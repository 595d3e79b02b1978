// Pending re-indexes in one Redis hash, revision -> JSON, so a process that starts or reconnects learns them.
import type { Redis } from 'ioredis';
import type { PendingReindex, ReindexState } from '../ports/reindex-state.js';

export function redisReindexState(redis: Redis, prefix: string): ReindexState {
  const key = `${prefix}:reindexing`;
  return {
    async begin(r) {
      await redis.hset(key, String(r.revision), JSON.stringify(r));
    },
    async end(revisions) {
      if (revisions.length) await redis.hdel(key, ...revisions.map(String));
    },
    async all() {
      const out: PendingReindex[] = [];
      for (const value of Object.values(await redis.hgetall(key))) {
        try {
          out.push(JSON.parse(value) as PendingReindex);
        } catch { /* not ours: ignored */ }
      }
      return out;
    },
  };
}
