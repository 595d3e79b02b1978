// Pending re-indexes in memory, one entry per revision on the shared hub (as src/stores/redis/reindex-state.ts).
import type { PendingReindex, ReindexState } from '../ports/reindex-state.js';
import type { MemoryHub } from './hub.js';

export function memoryReindexState(hub: MemoryHub, prefix: string): ReindexState {
  const pending = () => hub.struct(`${prefix}:reindexing`, () => new Map<number, string>());
  return {
    // Stored as text, so a caller's later change to its object is not seen here (Redis keeps JSON).
    async begin(r) {
      pending().set(r.revision, JSON.stringify(r));
    },
    async end(revisions) {
      for (const r of revisions) pending().delete(r);
    },
    async all() {
      return [...pending().values()].map((v) => JSON.parse(v) as PendingReindex);
    },
  };
}
