// In-memory twin of the MongoDB access-view store: published views and their object lists, drafts unseen until published.
import type { AccessViewRecord, AccessViewStore } from '../ports/access-views.js';
import { copy } from './copy.js';

interface Stored {
  view: AccessViewRecord;
  objects: string[];
}

export function memoryAccessViewStore(): AccessViewStore {
  const views = new Map<string, Stored>();
  return {
    draft() {
      let objects: string[] = [];
      return {
        async append(more) {
          objects.push(...more);
        },
        async publish(view) {
          const record: AccessViewRecord = { ...copy(view), count: objects.length };
          views.set(view._id, { view: record, objects });
          objects = [];
          return copy(record);
        },
        async discard() {
          objects = [];
        },
      };
    },
    async get(name) {
      return copy(views.get(name)?.view ?? null);
    },
    async page(name, skip, limit) {
      const found = views.get(name);
      return found ? { view: copy(found.view), objects: found.objects.slice(skip, skip + limit) } : null;
    },
    async list(skip, limit) {
      const all = [...views.values()].map((s) => s.view).sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
      return { items: copy(all.slice(skip, skip + limit)), count: all.length };
    },
    async delete(name) {
      return views.delete(name);
    },
  };
}
