// In-memory twin of the MongoDB file record store: one record per file id.
import type { FileRecord, FileRecordStore } from '../ports/file-records.js';
import { copy, insertNew } from './copy.js';

export function memoryFileRecordStore(): FileRecordStore {
  const files = new Map<string, FileRecord>();
  return {
    async insert(record) {
      insertNew(files, record);
    },
    async get(id) {
      return copy(files.get(id) ?? null);
    },
    async getMany(ids) {
      return [...new Set(ids)].flatMap((id) => (files.has(id) ? [copy(files.get(id)!)] : []));
    },
    async update(id, set) {
      const found = files.get(id);
      if (!found) return null;
      const after = { ...found, ...copy(set), _id: id };
      files.set(id, after);
      return copy(after);
    },
    async delete(id) {
      const found = files.get(id) ?? null;
      files.delete(id);
      return found;
    },
  };
}
