// API token metadata and bcrypt hashes in MongoDB.
import type { Db } from 'mongodb';
import type { ApiTokenRecord, ApiTokenStore } from '../ports/api-tokens.js';
import { COLLECTIONS } from './connection.js';
import { nullIfDuplicate } from './duplicate-key.js';

export function mongoApiTokenStore(db: Db): ApiTokenStore {
  const col = db.collection<ApiTokenRecord>(COLLECTIONS.apiTokens);
  return {
    async insert(record) {
      // The public prefix is the key, so authentication is one `_id` lookup (FerretDB v1 scans other filters).
      const doc = { ...record, _id: record.tokenPrefix };
      return nullIfDuplicate(async () => {
        await col.insertOne(doc);
        return doc;
      });
    },
    async findByPrefix(tokenPrefix) {
      const found = await col.findOne({ _id: tokenPrefix });
      return found ? [found] : [];
    },
    listByAdmin: (adminId) => col.find({ adminId }).sort({ createdAt: 1 }).toArray(),
    findById: (id) => col.findOne({ _id: id }),
    async delete(id) {
      return (await col.deleteOne({ _id: id })).deletedCount === 1;
    },
    async touch(id, at) {
      await col.updateOne({ _id: id }, { $set: { lastUsedAt: at } });
    },
  };
}
