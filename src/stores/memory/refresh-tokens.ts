// In-memory twin of the MongoDB refresh token store: tokens by hash, the tombstones of used ones, revoked families.
import type { RefreshRecord, RefreshTokenStore } from '../ports/refresh-tokens.js';
import { copy, insertNew } from './copy.js';

/** A used token stays as a tombstone under this id, as in the adapter: its reuse is then told from a token never issued. */
const usedId = (hash: string) => `used:${hash}`;

export function memoryRefreshTokenStore(): RefreshTokenStore {
  const tokens = new Map<string, RefreshRecord>();
  const revoked = new Map<string, Date>();
  return {
    async insert(record) {
      insertNew(tokens, record);
    },
    async use(hash) {
      const live = tokens.get(hash);
      if (!live) {
        const used = tokens.get(usedId(hash));
        return used ? { record: copy(used), reused: true } : null;
      }
      // The claim is the tombstone's insert: one there already (a racing renewal's) makes this use a reuse.
      if (tokens.has(usedId(hash))) return { record: copy(live), reused: true };
      tokens.set(usedId(hash), { ...copy(live), _id: usedId(hash), used: true });
      tokens.delete(hash);
      return { record: copy(live), reused: false };
    },
    async remove(hash) {
      tokens.delete(hash);
    },
    async revokeFamily(family) {
      revoked.set(family, new Date());
      for (const [id, t] of tokens) if (t.family === family && !t.used) tokens.delete(id);
    },
    async familyRevoked(family) {
      return revoked.has(family);
    },
    async purgeExpired(now, revokedBefore) {
      let n = 0;
      for (const [id, t] of tokens) {
        if (t.expiresAt < now) {
          tokens.delete(id);
          n++;
        }
      }
      for (const [family, at] of revoked) {
        if (at < revokedBefore) {
          revoked.delete(family);
          n++;
        }
      }
      return n;
    },
  };
}
