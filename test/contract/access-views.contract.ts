// Contract of AccessViewStore: views written a chunk at a time, seen only once published, paged across chunks, replaced.
import type { AccessViewRecord, AccessViewStore } from '../../src/stores/ports/access-views.js';
import { instants, withStore, type Make } from './harness.js';

const [t0, t1] = instants(2);
const view = (name: string, revision = 1): Omit<AccessViewRecord, 'count'> => ({
  _id: name,
  subject: 'User:a',
  permission: 'read',
  resourceType: 'Doc',
  revision,
  createdAt: t0!,
  refreshedAt: t1!,
});
const objects = (n: number, prefix = 'Doc:') => Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(5, '0')}`);

/** Publishes `list` as view `name`, appended in parts of `part`. */
async function publish(store: AccessViewStore, name: string, list: string[], part = 700, revision = 1) {
  const d = store.draft(name);
  for (let i = 0; i < list.length; i += part) await d.append(list.slice(i, i + part));
  return d.publish(view(name, revision));
}

export function accessViewsContract(make: Make<AccessViewStore>) {
  const t = withStore(make);
  describe('AccessViewStore', () => {
    it('publishes a draft with its count, and pages its objects across chunk boundaries', t(async ({ store }) => {
      const list = objects(2500);
      expect(await publish(store, 'v1', list)).toEqual({ ...view('v1'), count: 2500 });
      expect(await store.get('v1')).toEqual({ ...view('v1'), count: 2500 });
      for (const [skip, limit] of [[0, 10], [990, 20], [1995, 10], [2490, 50], [0, 2500], [2500, 10]] as const) {
        expect(await store.page('v1', skip, limit)).toEqual({ view: { ...view('v1'), count: 2500 }, objects: list.slice(skip, skip + limit) });
      }
      expect(await store.page('nope', 0, 10)).toBeNull();
      expect(await store.get('nope')).toBeNull();
    }));

    it('shows a draft only once published; a discarded one never', t(async ({ store }) => {
      await publish(store, 'v1', objects(3));
      const d = store.draft('v1');
      await d.append(['Doc:new']);
      expect((await store.page('v1', 0, 10))?.objects).toEqual(objects(3));
      await d.discard();
      expect((await store.page('v1', 0, 10))?.objects).toEqual(objects(3));
      const fresh = store.draft('v2');
      await fresh.append(['Doc:x']);
      expect(await store.get('v2')).toBeNull();
      await fresh.discard();
      expect(await store.list(0, 10)).toMatchObject({ count: 1 });
    }));

    it('replaces a view on republish, and an empty list is a view of none', t(async ({ store }) => {
      await publish(store, 'v1', objects(1200));
      const again = objects(5, 'Doc:b');
      expect(await publish(store, 'v1', again, 2, 2)).toEqual({ ...view('v1', 2), count: 5 });
      expect(await store.page('v1', 0, 100)).toEqual({ view: { ...view('v1', 2), count: 5 }, objects: again });
      expect(await publish(store, 'v1', [], 1, 3)).toEqual({ ...view('v1', 3), count: 0 });
      expect((await store.page('v1', 0, 10))?.objects).toEqual([]);
    }));

    it('of two drafts of one view, the one published last is the view, whole', t(async ({ store }) => {
      const first = store.draft('v1');
      const second = store.draft('v1');
      await first.append(objects(1500, 'Doc:a'));
      await second.append(objects(1100, 'Doc:b'));
      await second.publish(view('v1', 2));
      await first.publish(view('v1', 1));
      expect(await store.page('v1', 995, 10)).toEqual({ view: { ...view('v1', 1), count: 1500 }, objects: objects(1500, 'Doc:a').slice(995, 1005) });
      expect((await store.page('v1', 1490, 20))?.objects).toEqual(objects(1500, 'Doc:a').slice(1490));
    }));

    it('lists the views by name without their objects, and deletes once', t(async ({ store }) => {
      for (const n of ['b', 'c', 'a']) await publish(store, n, objects(2));
      const listed = await store.list(1, 5);
      expect(listed).toEqual({ items: [{ ...view('b'), count: 2 }, { ...view('c'), count: 2 }], count: 3 });
      expect(await store.delete('b')).toBe(true);
      expect(await store.delete('b')).toBe(false);
      expect(await store.page('b', 0, 10)).toBeNull();
      expect((await store.list(0, 5)).items.map((v) => v._id)).toEqual(['a', 'c']);
      // Republished after a delete, it starts afresh.
      await publish(store, 'b', ['Doc:z']);
      expect((await store.page('b', 0, 5))?.objects).toEqual(['Doc:z']);
    }));
  });
}
