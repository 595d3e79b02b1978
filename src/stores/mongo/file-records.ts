// File records in MongoDB, one document per file, looked up by id only (lists come from the index).
import type { Db } from 'mongodb';
import type { FileRecord, FileRecordStore } from '../ports/file-records.js';
import { neutralDuplicate } from './duplicate-key.js';

export const FILES_COLLECTION = 'storage_files';

export function mongoFileRecordStore(db: Db): FileRecordStore {
  const col = db.collection<FileRecord>(FILES_COLLECTION);
  return {
    async insert(record) {
      await neutralDuplicate(() => col.insertOne(record));
    },
    get: (id) => col.findOne({ _id: id }),
    async getMany(ids) {
      // One indexed lookup each: FerretDB v1 scans a whole collection for `$in`.
      const found = await Promise.all([...new Set(ids)].map((id) => col.findOne({ _id: id })));
      return found.filter((r): r is FileRecord => r !== null);
    },
    update: (id, set) => col.findOneAndUpdate({ _id: id }, { $set: set }, { returnDocument: 'after' }),
    delete: (id) => col.findOneAndDelete({ _id: id }),
  };
}
