// Contract of AdminStore: admins created or reset by upsert (the environment is authoritative), found by name and id.
import type { AdminStore } from '../../src/stores/ports/admins.js';
import { withStore, type Make } from './harness.js';

export function adminsContract(make: Make<AdminStore>) {
  const t = withStore(make);
  describe('AdminStore', () => {
    it('creates an admin on first upsert and finds it by username and by id', t(async ({ store }) => {
      const a = await store.upsert('root', 'h1');
      expect(a).toEqual({ _id: expect.any(String), username: 'root', passwordHash: 'h1', createdAt: expect.any(Date) });
      expect(await store.findByUsername('root')).toEqual(a);
      expect(await store.findById(a._id)).toEqual(a);
      expect(await store.findByUsername('other')).toBeNull();
      expect(await store.findById('nope')).toBeNull();
    }));

    it('resets the password of an existing admin, keeping its id and creation time', t(async ({ store }) => {
      const first = await store.upsert('root', 'h1');
      const again = await store.upsert('root', 'h2');
      expect(again).toEqual({ ...first, passwordHash: 'h2' });
      expect(await store.findById(first._id)).toEqual(again);
      const other = await store.upsert('ops', 'h3');
      expect(other._id).not.toBe(first._id);
    }));

    it('keeps one admin per username under racing upserts', t(async ({ store }) => {
      const all = await Promise.all([store.upsert('root', 'a'), store.upsert('root', 'b'), store.upsert('root', 'c')]);
      expect(new Set(all.map((a) => a._id)).size).toBe(1);
      expect(['a', 'b', 'c']).toContain((await store.findByUsername('root'))?.passwordHash);
    }));
  });
}
