// Recent deletions in Redis: an applier that assumes an added tuple is still stored checks these first.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { DeletionHints } from '../ports/deletion-hints.js';

const TTL_SECONDS = 3600;

export function redisDeletionHints(redis: Redis, prefix: string): DeletionHints {
  const key = (text: string) => `${prefix}:del:${createHash('sha1').update(text).digest('base64url')}`;
  return {
    async mark(texts) {
      if (texts.length === 0) return;
      const multi = redis.multi();
      for (const t of texts) multi.set(key(t), '1', 'EX', TTL_SECONDS);
      await multi.exec();
    },
    async hinted(texts) {
      const out = new Set<string>();
      for (let i = 0; i < texts.length; i += 1000) {
        const part = texts.slice(i, i + 1000);
        const values = await redis.mget(...part.map(key));
        part.forEach((t, j) => {
          if (values[j] !== null) out.add(t);
        });
      }
      return out;
    },
  };
}
