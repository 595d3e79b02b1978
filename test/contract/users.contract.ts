// Contract of UserStore: users unique by email, found by email, by id and by ids.
import type { UserRecord, UserStore } from '../../src/stores/ports/users.js';
import { instants, withStore, type Make } from './harness.js';

const [at] = instants(1);
const user = (id: string, email: string): UserRecord => ({ _id: id, email, passwordHash: `hash-${id}`, createdAt: at! });

export function usersContract(make: Make<UserStore>) {
  const t = withStore(make);
  describe('UserStore', () => {
    it('inserts a user and finds it by email and by id', t(async ({ store }) => {
      expect(await store.insert(user('u1', 'a@example.com'))).toEqual(user('u1', 'a@example.com'));
      expect(await store.findByEmail('a@example.com')).toEqual(user('u1', 'a@example.com'));
      expect(await store.findById('u1')).toEqual(user('u1', 'a@example.com'));
      expect(await store.findByEmail('b@example.com')).toBeNull();
      expect(await store.findById('u2')).toBeNull();
    }));

    it('refuses an email taken (null), and an id taken', t(async ({ store }) => {
      await store.insert(user('u1', 'a@example.com'));
      expect(await store.insert(user('u2', 'a@example.com'))).toBeNull();
      expect(await store.insert(user('u1', 'other@example.com'))).toBeNull();
      expect(await store.findById('u2')).toBeNull();
      expect(await store.findByEmail('other@example.com')).toBeNull();
    }));

    it('finds by ids once each, leaving out the missing', t(async ({ store }) => {
      await store.insert(user('u1', 'a@example.com'));
      await store.insert(user('u2', 'b@example.com'));
      const found = await store.findByIds(['u2', 'nope', 'u1', 'u2']);
      expect(found.map((u) => u._id).sort()).toEqual(['u1', 'u2']);
      expect(await store.findByIds([])).toEqual([]);
    }));

    it('gives out copies: changing a user given or returned changes nothing stored', t(async ({ store }) => {
      const u = user('u1', 'a@example.com');
      await store.insert(u);
      u.passwordHash = 'changed';
      (await store.findById('u1'))!.email = 'x@example.com';
      expect(await store.findByEmail('a@example.com')).toEqual(user('u1', 'a@example.com'));
    }));
  });
}
