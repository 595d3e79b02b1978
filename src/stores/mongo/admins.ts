// Admin accounts in MongoDB.
import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import type { AdminRecord, AdminStore } from '../ports/admins.js';
import { COLLECTIONS } from './connection.js';
import { upsertRaced } from './duplicate-key.js';

export function mongoAdminStore(db: Db): AdminStore {
  const col = db.collection<AdminRecord>(COLLECTIONS.admins);
  return {
    findByUsername: (username) => col.findOne({ username }),
    findById: (id) => col.findOne({ _id: id }),
    async upsert(username, passwordHash) {
      await upsertRaced(() =>
        col.updateOne({ username }, {
          $set: { passwordHash },
          $setOnInsert: { _id: randomUUID(), username, createdAt: new Date() },
        }, { upsert: true })
      );
      return (await col.findOne({ username }))!;
    },
  };
}
