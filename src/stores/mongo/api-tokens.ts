// API token metadata and bcrypt hashes in MongoDB.
import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import type { ApiTokenRecord, ApiTokenStore } from '../ports.js';
import { COLLECTIONS } from './connection.js';

export function mongoApiTokenStore(db: Db): ApiTokenStore {
  const col = db.collection<ApiTokenRecord>(COLLECTIONS.apiTokens);
  return {
    async insert(record) {
      const doc = { ...record, _id: randomUUID() };
      await col.insertOne(doc);
      return doc;
    },
    findByPrefix: (tokenPrefix) => col.find({ tokenPrefix }).toArray(),
    listByAdmin: (adminId) => col.find({ adminId }).sort({ createdAt: 1 }).toArray(),
    findById: (id) => col.findOne({ _id: id }),
    async delete(id) { return (await col.deleteOne({ _id: id })).deletedCount === 1; },
    async touch(id, at) { await col.updateOne({ _id: id }, { $set: { lastUsedAt: at } }); },
  };
}
