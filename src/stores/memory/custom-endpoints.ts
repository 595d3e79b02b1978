// In-memory twin of the MongoDB custom endpoint store: definitions keyed by name, listed in name order.
import type { EndpointRecord, EndpointStore } from '../ports/custom-endpoints.js';
import { copy } from './copy.js';

export function memoryEndpointStore(): EndpointStore {
  const endpoints = new Map<string, EndpointRecord>();
  const sorted = () => [...endpoints.values()].sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
  return {
    async list(skip, limit) {
      const all = sorted();
      return { items: copy(all.slice(skip, skip + limit)), count: all.length };
    },
    async count() {
      return endpoints.size;
    },
    async get(name) {
      return copy(endpoints.get(name) ?? null);
    },
    async insert(r) {
      if (endpoints.has(r._id)) return false;
      endpoints.set(r._id, copy(r));
      return true;
    },
    async replace(r) {
      if (!endpoints.has(r._id)) return false;
      endpoints.set(r._id, copy(r));
      return true;
    },
    async delete(name) {
      const found = endpoints.get(name) ?? null;
      endpoints.delete(name);
      return found;
    },
  };
}
