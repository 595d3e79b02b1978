// Refresh tokens in MongoDB, keyed by the hash of the token (the value itself is never stored), and revoked logins.
import type { Db } from 'mongodb';
import type { RefreshRecord, RefreshTokenStore } from '../ports/refresh-tokens.js';
import { COLLECTIONS } from './connection.js';
import { isDuplicateKey, neutralDuplicate, upsertRaced } from './duplicate-key.js';

const usedId = (hash: string) => `used:${hash}`;

export function mongoRefreshTokenStore(db: Db): RefreshTokenStore {
  const col = db.collection<RefreshRecord>(COLLECTIONS.refreshTokens);
  const revoked = db.collection<{ _id: string; revokedAt: Date }>(COLLECTIONS.revokedFamilies);
  return {
    async insert(record) {
      await neutralDuplicate(() => col.insertOne(record));
    },
    async use(hash) {
      const live = await col.findOne({ _id: hash });
      if (!live) {
        const used = await col.findOne({ _id: usedId(hash) });
        return used ? { record: used, reused: true } : null;
      }
      // The claim is the tombstone's unique insert (atomic on FerretDB v1, where a conditional update is a read
      // and a separate write): of renewals racing with one token exactly one wins, the others see a reuse.
      try {
        await col.insertOne({ ...live, _id: usedId(hash), used: true });
      } catch (e) {
        if (isDuplicateKey(e)) return { record: live, reused: true };
        throw e;
      }
      await col.deleteOne({ _id: hash });
      return { record: live, reused: false };
    },
    async remove(hash) {
      await col.deleteOne({ _id: hash });
    },
    async revokeFamily(family) {
      // Reuses racing each revoke the login: their upserts of one family may lose to each other's insert.
      await upsertRaced(() => revoked.updateOne({ _id: family }, { $set: { revokedAt: new Date() } }, { upsert: true }));
      await col.deleteMany({ family, used: false });
    },
    async familyRevoked(family) {
      return (await revoked.findOne({ _id: family })) !== null;
    },
    async purgeExpired(now, revokedBefore) {
      const tokens = await col.deleteMany({ expiresAt: { $lt: now } });
      const families = await revoked.deleteMany({ revokedAt: { $lt: revokedBefore } });
      return tokens.deletedCount + families.deletedCount;
    },
  };
}
