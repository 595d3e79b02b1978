// Client users in MongoDB; the email (lowercased) is unique.
import type { Db } from 'mongodb';
import type { UserRecord, UserStore } from '../ports/users.js';
import { findByIds } from './by-ids.js';
import { COLLECTIONS } from './connection.js';
import { nullIfDuplicate } from './duplicate-key.js';

export function mongoUserStore(db: Db): UserStore {
  const col = db.collection<UserRecord>(COLLECTIONS.users);
  return {
    async insert(user) {
      return nullIfDuplicate(async () => {
        await col.insertOne(user);
        return user;
      });
    },
    findByEmail: (email) => col.findOne({ email }),
    findById: (id) => col.findOne({ _id: id }),
    findByIds: (ids) => findByIds(col, ids),
  };
}
