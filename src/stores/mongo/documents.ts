// Documents of database schemas, one MongoDB collection per schema.
import { ObjectId, type Db, type Document } from 'mongodb';
import type { Doc, DocumentStore } from '../ports/documents.js';
import { neutralDuplicate } from './duplicate-key.js';

type Raw = Document;
/** Ids are strings here or ObjectIds in adopted collections; the driver's Filter types only ObjectIds. */
const byId = (id: unknown): Document => ({ _id: id });
/** Ids leave the store as strings: documents the service created have string ids, adopted collections often ObjectIds. */
const asDoc = (d: Raw): Doc => ({ ...d, _id: String(d._id) });
const HEX24 = /^[0-9a-f]{24}$/i;

export function mongoDocumentStore(db: Db): DocumentStore {
  const col = (name: string) => db.collection(name);
  /** The stored document for an id given as a string: a string `_id`, else an ObjectId with that hex (adopted collections). */
  const raw = async (collection: string, id: string): Promise<Raw | null> =>
    (await col(collection).findOne(byId(id)))
      ?? (HEX24.test(id) ? col(collection).findOne(byId(new ObjectId(id))) : null);
  return {
    async insert(collection, doc) {
      await neutralDuplicate(() => col(collection).insertOne(doc as Document));
    },
    async findById(collection, id) {
      const d = await raw(collection, id);
      return d ? asDoc(d) : null;
    },
    async findByIds(collection, ids) {
      // One indexed lookup each: FerretDB v1 scans a whole collection for `$in`.
      const found = await Promise.all([...new Set(ids)].map((id) => raw(collection, id)));
      return found.filter((d): d is Raw => d !== null).map(asDoc);
    },
    async update(collection, id, set) {
      const d = await raw(collection, id);
      if (!d) return null;
      const r = await neutralDuplicate(() => col(collection).updateOne(byId(d._id), { $set: set }));
      if (r.matchedCount === 0) return null;
      const after = await col(collection).findOne(byId(d._id));
      return after ? asDoc(after) : null;
    },
    async delete(collection, id) {
      const d = await raw(collection, id);
      if (!d) return null;
      return (await col(collection).deleteOne(byId(d._id))).deletedCount === 1 ? asDoc(d) : null;
    },
    async find(collection, filter, sort, skip, limit) {
      const docs = await col(collection).find(filter).sort({ ...sort, _id: sort._id ?? 1 }).skip(skip).limit(limit).toArray();
      return docs.map(asDoc);
    },
    count: (collection, filter) => col(collection).countDocuments(filter),
    async sample(collection, n) {
      return (await col(collection).find({}).limit(n).toArray()).map(asDoc);
    },
    async uniqueIndex(collection, field) {
      await neutralDuplicate(() => col(collection).createIndex({ [field]: 1 }, { unique: true }));
    },
  };
}
