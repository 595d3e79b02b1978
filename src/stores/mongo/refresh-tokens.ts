// Refresh tokens in MongoDB, keyed by the hash of the token (the value itself is never stored).
import type { Db } from 'mongodb';
import type { RefreshRecord, RefreshTokenStore } from '../ports.js';
import { COLLECTIONS } from './connection.js';

const usedId = (hash: string) => `used:${hash}`;

export function mongoRefreshTokenStore(db: Db): RefreshTokenStore {
  const col = db.collection<RefreshRecord>(COLLECTIONS.refreshTokens);
  return {
    async insert(record) { await col.insertOne(record); },
    async use(hash) {
      // A delete counts what it removed, so of two renewals racing with one token exactly one wins
      // (FerretDB v1 runs a conditional update as a read and a separate write). A tombstone keeps reuse detectable.
      const live = await col.findOne({ _id: hash });
      if (!live || (await col.deleteOne({ _id: hash })).deletedCount !== 1) return false;
      await col.insertOne({ ...live, _id: usedId(hash), used: true }).catch(() => undefined);
      return true;
    },
    async find(hash) { return (await col.findOne({ _id: hash })) ?? col.findOne({ _id: usedId(hash) }); },
    async revokeFamily(family) { await col.deleteMany({ family, used: false }); },
  };
}
