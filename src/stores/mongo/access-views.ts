// Access-list views in MongoDB: one document per view, its objects in chunks of their own, so a page reads one or two
// chunks rather than the whole list (FerretDB v1 has no $slice projection) and a refresh never holds it whole.
import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import type { AccessViewRecord, AccessViewStore } from '../ports/access-views.js';
import { COLLECTIONS } from './connection.js';
import { upsertRaced } from './duplicate-key.js';

/** Objects per chunk document. */
const CHUNK = 1000;

interface ViewDoc extends AccessViewRecord {
  version?: string;
  objects?: string[];
}
interface ChunkDoc {
  _id: string;
  view: string;
  version: string;
  n: number;
  objects: string[];
}

/** View names are letters, digits and `_ . -` (the route checks), so `/` cannot be part of one. */
const chunkId = (view: string, version: string, n: number) => `${view}/${version}/${n}`;
const record = ({ version: _v, objects: _o, ...view }: ViewDoc): AccessViewRecord => view;

export function mongoAccessViewStore(db: Db): AccessViewStore {
  const views = db.collection<ViewDoc>(COLLECTIONS.accessViews);
  const chunks = db.collection<ChunkDoc>(COLLECTIONS.accessViewChunks);
  return {
    draft(name) {
      const version = randomUUID();
      let count = 0;
      let pending: string[] = [];
      const flush = async () => {
        if (!pending.length) return;
        const n = Math.floor((count - pending.length) / CHUNK);
        await chunks.insertOne({ _id: chunkId(name, version, n), view: name, version, n, objects: pending });
        pending = [];
      };
      return {
        async append(objects) {
          for (const o of objects) {
            pending.push(o);
            count++;
            if (pending.length === CHUNK) await flush();
          }
        },
        async publish(view) {
          await flush();
          const doc: ViewDoc = { ...view, count, version };
          // Only the list this one replaced goes: of two refreshes at once, neither drops the chunks of the one that won.
          const before = await upsertRaced(() => views.findOneAndReplace({ _id: view._id }, doc, { upsert: true, returnDocument: 'before' }));
          if (before?.version && before.version !== version) await chunks.deleteMany({ view: view._id, version: before.version });
          return record(doc);
        },
        async discard() {
          await chunks.deleteMany({ view: name, version });
        },
      };
    },
    async get(name) {
      const found = await views.findOne({ _id: name }, { projection: { objects: 0 } });
      return found ? record(found) : null;
    },
    async page(name, skip, limit) {
      const found = await views.findOne({ _id: name }, { projection: { objects: 0 } });
      if (!found) return null;
      const end = Math.min(skip + limit, found.count);
      if (!found.version || skip >= end) {
        // A view stored whole by an earlier version: sliced from its document until its next refresh.
        const whole = found.version ? null : await views.findOne({ _id: name });
        return { view: record(found), objects: (whole?.objects ?? []).slice(skip, end) };
      }
      const objects: string[] = [];
      for (let n = Math.floor(skip / CHUNK); n * CHUNK < end; n++) {
        const c = await chunks.findOne({ _id: chunkId(name, found.version, n) });
        if (!c) break;
        objects.push(...c.objects.slice(Math.max(0, skip - n * CHUNK), end - n * CHUNK));
      }
      return { view: record(found), objects };
    },
    async list(skip, limit) {
      const [items, count] = await Promise.all([
        views.find({}, { projection: { objects: 0 } }).sort({ _id: 1 }).skip(skip).limit(limit).toArray(),
        views.countDocuments({}),
      ]);
      return { items: items.map(record), count };
    },
    async delete(name) {
      const gone = (await views.deleteOne({ _id: name })).deletedCount === 1;
      await chunks.deleteMany({ view: name });
      return gone;
    },
  };
}
