// Documents of database schemas, one MongoDB collection per schema.
import type { Collection, Db, Filter } from 'mongodb';
import type { Doc, DocumentStore } from '../ports.js';
import { findByIds } from './by-ids.js';

export function mongoDocumentStore(db: Db): DocumentStore {
  const col = (name: string) => db.collection<Doc>(name) as Collection<Doc>;
  return {
    async insert(collection, doc) { await col(collection).insertOne(doc); },
    findById: (collection, id) => col(collection).findOne({ _id: id }),
    findByIds: (collection, ids) => findByIds(col(collection), ids),
    async update(collection, id, set) {
      const c = col(collection);
      const r = await c.updateOne({ _id: id }, { $set: set });
      return r.matchedCount === 0 ? null : c.findOne({ _id: id });
    },
    async delete(collection, id) {
      const c = col(collection);
      const found = await c.findOne({ _id: id });
      if (!found) return null;
      return (await c.deleteOne({ _id: id })).deletedCount === 1 ? found : null;
    },
    find: (collection, filter, sort, skip, limit) =>
      col(collection).find(filter as Filter<Doc>).sort({ ...sort, _id: sort._id ?? 1 }).skip(skip).limit(limit).toArray(),
    count: (collection, filter) => col(collection).countDocuments(filter as Filter<Doc>),
    sample: (collection, n) => col(collection).find({}).limit(n).toArray(),
    async uniqueIndex(collection, field) { await col(collection).createIndex({ [field]: 1 }, { unique: true }); },
  };
}
