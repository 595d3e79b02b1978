// In-memory twin of the MongoDB API token store: tokens keyed by their public prefix.
import type { ApiTokenRecord, ApiTokenStore } from '../ports/api-tokens.js';
import { copy } from './copy.js';

export function memoryApiTokenStore(): ApiTokenStore {
  const tokens = new Map<string, ApiTokenRecord>();
  return {
    async insert(record) {
      const doc = { ...copy(record), _id: record.tokenPrefix };
      if (tokens.has(doc._id)) return null;
      tokens.set(doc._id, doc);
      return copy(doc);
    },
    async findByPrefix(prefix) {
      return tokens.has(prefix) ? [copy(tokens.get(prefix)!)] : [];
    },
    async listByAdmin(adminId) {
      return copy([...tokens.values()].filter((t) => t.adminId === adminId).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()));
    },
    async findById(id) {
      return copy(tokens.get(id) ?? null);
    },
    async delete(id) {
      return tokens.delete(id);
    },
    async touch(id, at) {
      const t = tokens.get(id);
      if (t) t.lastUsedAt = new Date(at.getTime());
    },
  };
}
