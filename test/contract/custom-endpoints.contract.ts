// Contract of EndpointStore: definitions unique by name, listed in name order, replaced and deleted.
import type { EndpointRecord, EndpointStore } from '../../src/stores/ports/custom-endpoints.js';
import { withStore, type Make } from './harness.js';

const endpoint = (name: string, description = 'd'): EndpointRecord => ({
  _id: name,
  name,
  description,
  operation: 'find',
  schema: 'Post',
  inputs: { title: { type: 'String', from: 'query', required: true } },
  filter: { title: { eq: { input: 'title' } } },
  assign: {},
  auth: 'token',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

export function customEndpointsContract(make: Make<EndpointStore>) {
  const t = withStore(make);
  describe('EndpointStore', () => {
    it('inserts once per name and gets it back', t(async ({ store }) => {
      expect(await store.insert(endpoint('byTitle'))).toBe(true);
      expect(await store.insert(endpoint('byTitle', 'other'))).toBe(false);
      expect(await store.get('byTitle')).toEqual(endpoint('byTitle'));
      expect(await store.get('nope')).toBeNull();
    }));

    it('lists in name order, paged with the count', t(async ({ store }) => {
      for (const n of ['c', 'a', 'b']) await store.insert(endpoint(n));
      expect(await store.count()).toBe(3);
      expect(await store.list(1, 5)).toEqual({ items: [endpoint('b'), endpoint('c')], count: 3 });
      expect(await store.list(0, 1)).toEqual({ items: [endpoint('a')], count: 3 });
    }));

    it('replaces an existing one only, and deletes answering what was there', t(async ({ store }) => {
      await store.insert(endpoint('e'));
      expect(await store.replace(endpoint('e', 'changed'))).toBe(true);
      expect((await store.get('e'))?.description).toBe('changed');
      expect(await store.replace(endpoint('ghost'))).toBe(false);
      expect(await store.get('ghost')).toBeNull();
      expect(await store.delete('e')).toEqual(endpoint('e', 'changed'));
      expect(await store.delete('e')).toBeNull();
      expect(await store.count()).toBe(0);
    }));
  });
}
