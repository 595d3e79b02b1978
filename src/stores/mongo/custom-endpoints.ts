// Custom endpoint definitions in MongoDB, keyed by name.
import type { Db } from 'mongodb';
import type { EndpointRecord, EndpointStore } from '../ports/custom-endpoints.js';
import { nullIfDuplicate } from './duplicate-key.js';

/** A collection of the service (introspection never offers it as a schema). */
export const ENDPOINTS_COLLECTION = 'custom_endpoints';

export function mongoEndpointStore(db: Db): EndpointStore {
  const col = db.collection<EndpointRecord>(ENDPOINTS_COLLECTION);
  return {
    async list(skip, limit) {
      const [items, count] = await Promise.all([col.find({}).sort({ _id: 1 }).skip(skip).limit(limit).toArray(), col.countDocuments({})]);
      return { items, count };
    },
    count: () => col.countDocuments({}),
    get: (name) => col.findOne({ _id: name }),
    async insert(r) {
      return (await nullIfDuplicate(async () => {
        await col.insertOne(r);
        return true;
      })) ?? false;
    },
    async replace(r) {
      return (await col.replaceOne({ _id: r._id }, r)).matchedCount === 1;
    },
    async delete(name) {
      const found = await col.findOne({ _id: name });
      if (!found) return null;
      return (await col.deleteOne({ _id: name })).deletedCount === 1 ? found : null;
    },
  };
}
