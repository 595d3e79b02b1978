// Contract of ApiTokenStore: tokens keyed by their prefix, listed per admin in creation order, touched and deleted.
import type { ApiTokenRecord, ApiTokenStore } from '../../src/stores/ports/api-tokens.js';
import { instants, withStore, type Make } from './harness.js';

const [t0, t1, t2, t3] = instants(4);
const token = (prefix: string, adminId: string, createdAt: Date): Omit<ApiTokenRecord, '_id'> => ({
  name: `token ${prefix}`,
  tokenPrefix: prefix,
  hash: `hash-${prefix}`,
  adminId,
  createdAt,
  expiresAt: t3!,
  lastUsedAt: null,
});

export function apiTokensContract(make: Make<ApiTokenStore>) {
  const t = withStore(make);
  describe('ApiTokenStore', () => {
    it('inserts a token under its prefix and finds it by prefix and by id', t(async ({ store }) => {
      const saved = await store.insert(token('abc123', 'a1', t0!));
      expect(saved).toEqual({ ...token('abc123', 'a1', t0!), _id: 'abc123' });
      expect(await store.findByPrefix('abc123')).toEqual([saved]);
      expect(await store.findById(saved!._id)).toEqual(saved);
      expect(await store.findByPrefix('zzz')).toEqual([]);
      expect(await store.findById('zzz')).toBeNull();
    }));

    it('answers null for a prefix taken, keeping the first token', t(async ({ store }) => {
      await store.insert(token('abc123', 'a1', t0!));
      expect(await store.insert({ ...token('abc123', 'a2', t1!), name: 'other' })).toBeNull();
      expect((await store.findByPrefix('abc123'))[0]).toMatchObject({ adminId: 'a1', name: 'token abc123' });
    }));

    it("lists an admin's tokens oldest first, and no one else's", t(async ({ store }) => {
      await store.insert(token('p3', 'a1', t2!));
      await store.insert(token('p1', 'a1', t0!));
      await store.insert(token('p2', 'a2', t1!));
      expect((await store.listByAdmin('a1')).map((x) => x._id)).toEqual(['p1', 'p3']);
      expect(await store.listByAdmin('a9')).toEqual([]);
    }));

    it('touches the last use, and deletes once', t(async ({ store }) => {
      await store.insert(token('p1', 'a1', t0!));
      await store.touch('p1', t2!);
      await store.touch('missing', t2!);
      expect((await store.findById('p1'))?.lastUsedAt).toEqual(t2);
      expect(await store.findById('missing')).toBeNull();
      expect(await store.delete('p1')).toBe(true);
      expect(await store.delete('p1')).toBe(false);
      expect(await store.findByPrefix('p1')).toEqual([]);
    }));
  });
}
