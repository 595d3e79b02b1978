// Recent deletions in memory, on the shared hub, for an hour (as src/stores/redis/deletion-hints.ts).
import type { DeletionHints } from '../ports/deletion-hints.js';
import type { MemoryHub } from './hub.js';

const TTL_MS = 3600_000;

export function memoryDeletionHints(hub: MemoryHub, prefix: string): DeletionHints {
  const key = (text: string) => `${prefix}:del:${text}`;
  return {
    async mark(texts) {
      for (const t of texts) hub.set(key(t), '1', { px: TTL_MS });
    },
    async hinted(texts) {
      return new Set(texts.filter((t) => hub.get(key(t)) !== null));
    },
  };
}
