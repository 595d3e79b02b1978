// Config module overrides, one document per module: what operators PATCHed, over the defaults.
import type { Db } from 'mongodb';
import type { ConfigStore } from '../ports/config.js';
import { COLLECTIONS } from './connection.js';
import { upsertRaced } from './duplicate-key.js';

interface ConfigRecord {
  _id: string;
  value: Record<string, unknown>;
  updatedAt: Date;
}

export function mongoConfigStore(db: Db): ConfigStore {
  const col = db.collection<ConfigRecord>(COLLECTIONS.config);
  return {
    async all() {
      return Object.fromEntries((await col.find({}).toArray()).map((r) => [r._id, r.value]));
    },
    async get(module) {
      return (await col.findOne({ _id: module }))?.value ?? null;
    },
    async put(module, value) {
      await upsertRaced(() => col.replaceOne({ _id: module }, { value, updatedAt: new Date() }, { upsert: true }));
    },
  };
}
