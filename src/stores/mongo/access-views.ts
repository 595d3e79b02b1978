// Access-list views in MongoDB: one document per view, its objects as one sorted array (bounded by the service).
import type { Db } from 'mongodb';
import type { AccessViewRecord, AccessViewStore } from '../ports/access-views.js';
import { COLLECTIONS } from './connection.js';

export function mongoAccessViewStore(db: Db): AccessViewStore {
  const views = db.collection<AccessViewRecord & { count: number }>(COLLECTIONS.accessViews);
  return {
    async put(view) {
      await views.replaceOne({ _id: view._id }, { ...view, count: view.objects.length }, { upsert: true });
    },
    async get(name) {
      const found = await views.findOne({ _id: name });
      if (!found) return null;
      const { count: _count, ...view } = found;
      return view;
    },
    async list(skip, limit) {
      const [items, count] = await Promise.all([
        views.find({}, { projection: { objects: 0 } }).sort({ _id: 1 }).skip(skip).limit(limit).toArray(),
        views.countDocuments({}),
      ]);
      return { items, count };
    },
    async delete(name) {
      return (await views.deleteOne({ _id: name })).deletedCount === 1;
    },
  };
}
