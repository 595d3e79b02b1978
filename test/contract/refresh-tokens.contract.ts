// Contract of RefreshTokenStore: a token used once, a reuse told apart, families revoked for good, expired ones purged.
import { DuplicateKey } from '../../src/stores/ports/errors.js';
import type { RefreshRecord, RefreshTokenStore } from '../../src/stores/ports/refresh-tokens.js';
import { instants, withStore, type Make } from './harness.js';

const [past, now, future] = instants(3, Date.UTC(2030, 0, 1));
const token = (hash: string, family = 'f1', expiresAt = future!): RefreshRecord => ({ _id: hash, userId: 'u1', family, expiresAt, used: false });
/** What a renewal needs of a record: whose, which login, until when (the stored id of a used one is the adapter's). */
const essence = (r: RefreshRecord | undefined) => r && { userId: r.userId, family: r.family, expiresAt: r.expiresAt };

export function refreshTokensContract(make: Make<RefreshTokenStore>) {
  const t = withStore(make);
  describe('RefreshTokenStore', () => {
    it('claims a live token once; a second use is a reuse; an unknown token is null', t(async ({ store }) => {
      await store.insert(token('h1'));
      const first = await store.use('h1');
      expect(first).toEqual({ record: token('h1'), reused: false });
      const again = await store.use('h1');
      expect(again?.reused).toBe(true);
      expect(essence(again?.record)).toEqual(essence(token('h1')));
      expect(await store.use('nope')).toBeNull();
    }));

    it('lets exactly one of racing renewals claim a token', t(async ({ store }) => {
      await store.insert(token('h1'));
      const all = await Promise.all([store.use('h1'), store.use('h1'), store.use('h1')]);
      expect(all.map((r) => r?.reused).sort()).toEqual([false, true, true]);
    }));

    it('refuses a hash taken with DuplicateKey', t(async ({ store }) => {
      await store.insert(token('h1'));
      await expect(store.insert(token('h1', 'f2'))).rejects.toBeInstanceOf(DuplicateKey);
      expect((await store.use('h1'))?.record.family).toBe('f1');
    }));

    it('removes a live token', t(async ({ store }) => {
      await store.insert(token('h1'));
      await store.remove('h1');
      await store.remove('h1');
      expect(await store.use('h1')).toBeNull();
    }));

    it('revokes a family: its live tokens go, its used ones still tell a reuse, other families stay', t(async ({ store }) => {
      await store.insert(token('a1'));
      await store.insert(token('a2'));
      await store.insert(token('b1', 'f2'));
      await store.use('a1');
      expect(await store.familyRevoked('f1')).toBe(false);
      await store.revokeFamily('f1');
      await store.revokeFamily('f1');
      expect(await store.familyRevoked('f1')).toBe(true);
      expect(await store.familyRevoked('f2')).toBe(false);
      expect(await store.use('a2')).toBeNull();
      expect((await store.use('a1'))?.reused).toBe(true);
      expect((await store.use('b1'))?.reused).toBe(false);
    }));

    it('purges tokens expired before now, used or not, and revocations recorded before the bound', t(async ({ store }) => {
      await store.insert(token('old-live', 'f1', past!));
      await store.insert(token('old-used', 'f1', past!));
      await store.use('old-used');
      await store.insert(token('fresh', 'f1', future!));
      await store.revokeFamily('f9');
      expect(await store.purgeExpired(now!, new Date(0))).toBe(2);
      expect(await store.use('old-live')).toBeNull();
      expect(await store.use('old-used')).toBeNull();
      expect(await store.familyRevoked('f9')).toBe(true);
      expect((await store.use('fresh'))?.reused).toBe(false);
      // Revoked just now: before a bound a minute ahead.
      expect(await store.purgeExpired(now!, new Date(Date.now() + 60_000))).toBe(1);
      expect(await store.familyRevoked('f9')).toBe(false);
    }));
  });
}
