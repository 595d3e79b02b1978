// Client users in MongoDB; the email (lowercased) is unique.
import type { Db } from 'mongodb';
import type { UserRecord, UserStore } from '../ports/users.js';
import { findByIds } from './by-ids.js';
import { COLLECTIONS } from './connection.js';

export function mongoUserStore(db: Db): UserStore {
  const col = db.collection<UserRecord>(COLLECTIONS.users);
  return {
    async insert(user) {
      try {
        await col.insertOne(user);
        return user;
      } catch (e) {
        if ((e as { code?: number }).code === 11000) return null;
        throw e;
      }
    },
    findByEmail: (email) => col.findOne({ email }),
    findById: (id) => col.findOne({ _id: id }),
    findByIds: (ids) => findByIds(col, ids),
  };
}
