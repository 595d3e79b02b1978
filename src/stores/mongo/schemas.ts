// Database schemas and introspection results in MongoDB.
import type { Db } from 'mongodb';
import type { IntrospectedRecord, SchemaRecord, SchemaStore } from '../ports/schemas.js';
import { COLLECTIONS } from './connection.js';
import { neutralDuplicate, nullIfDuplicate, upsertRaced } from './duplicate-key.js';

export function mongoSchemaStore(db: Db): SchemaStore {
  const schemas = db.collection<SchemaRecord>(COLLECTIONS.schemas);
  const found = db.collection<IntrospectedRecord>(COLLECTIONS.introspected);
  return {
    async list(skip, limit) {
      const [items, count] = await Promise.all([schemas.find({}).sort({ name: 1 }).skip(skip).limit(limit).toArray(), schemas.countDocuments({})]);
      return { items, count };
    },
    all: () => schemas.find({}).sort({ name: 1 }).toArray(),
    findByName: (name) => schemas.findOne({ name }),
    findByCollection: (collectionName) => schemas.findOne({ collectionName }),
    async insert(s) {
      return nullIfDuplicate(async () => {
        await schemas.insertOne(s);
        return s;
      });
    },
    async replace(s) {
      await neutralDuplicate(() => schemas.replaceOne({ _id: s._id }, s));
    },
    async collections() {
      return (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    },
    async putIntrospected(list) {
      for (const r of list) await upsertRaced(() => found.replaceOne({ _id: r._id }, r, { upsert: true }));
    },
    introspected: () => found.find({}).sort({ _id: 1 }).toArray(),
    async dropIntrospected(ids) {
      for (const id of ids) await found.deleteOne({ _id: id });
    },
  };
}
