// Contract of GrantStore: grants put once, deleted once, found by the objects they name and scanned up to a revision.
import { tupleText, type Tuple } from '../../src/engine/ids.js';
import type { GrantStore } from '../../src/stores/ports/grants.js';
import { collect, withStore, type Make } from './harness.js';

const g = (subject: string, relation: string, resource: string): Tuple => ({ subject, relation, resource });
const texts = (ts: Tuple[]) => ts.map(tupleText).sort();

export function grantsContract(make: Make<GrantStore>) {
  const t = withStore(make);
  describe('GrantStore', () => {
    it('puts a grant once and deletes it once', t(async ({ store }) => {
      const grant = g('User:a', 'read', 'Doc:1');
      expect(await store.putGrant(grant, 1)).toEqual({ created: true });
      expect(await store.putGrant(grant, 2)).toEqual({ created: false });
      expect([...await store.presentGrants(['User:a#read@Doc:1', 'User:b#read@Doc:1'])]).toEqual(['User:a#read@Doc:1']);
      expect(await store.deleteGrant(grant)).toBe(true);
      expect(await store.deleteGrant(grant)).toBe(false);
      expect(await store.presentGrants(['User:a#read@Doc:1'])).toEqual(new Set());
    }));

    it('streams the grants on an object as resource, then as subject, in bounded batches', t(async ({ store }) => {
      const onDoc = [g('User:a', 'read', 'Doc:1'), g('User:b', 'read', 'Doc:1'), g('Team:t', 'edit', 'Doc:1')];
      const fromDoc = [g('Doc:1', 'read', 'Folder:f')];
      for (const x of [...onDoc, ...fromDoc, g('User:a', 'read', 'Doc:2')]) await store.putGrant(x, 1);
      const batches = await collect(store.grantsInvolving('Doc:1', 2));
      expect(batches.every((b) => b.length >= 1 && b.length <= 2)).toBe(true);
      const flat = batches.flat();
      expect(texts(flat.slice(0, 3))).toEqual(texts(onDoc));
      expect(flat.slice(3)).toEqual(fromDoc);
      expect(await collect(store.grantsInvolving('Doc:404', 2))).toEqual([]);
    }));

    it('scans every grant in bounded batches, up to a revision when asked', t(async ({ store }) => {
      const early = [g('User:a', 'read', 'Doc:1'), g('User:b', 'read', 'Doc:2'), g('User:c', 'edit', 'Folder:3')];
      const late = [g('User:d', 'read', 'Doc:4')];
      for (const x of early) await store.putGrant(x, 2);
      for (const x of late) await store.putGrant(x, 6);
      const all = await collect(store.scanGrants(2));
      expect(all.every((b) => b.length >= 1 && b.length <= 2)).toBe(true);
      expect(texts(all.flat())).toEqual(texts([...early, ...late]));
      expect(Object.keys(all.flat()[0]!).sort()).toEqual(['relation', 'resource', 'subject']);
      expect(texts((await collect(store.scanGrants(10, 5))).flat())).toEqual(texts(early));
      expect(await collect(store.scanGrants(10, 1))).toEqual([]);
    }));

    it('counts grants without reading them: a non-negative estimate, never above what is stored', t(async ({ store }) => {
      await store.putGrant(g('User:a', 'read', 'Doc:1'), 1);
      const n = await store.countGrants();
      expect(Number.isInteger(n)).toBe(true);
      expect(n).toBeGreaterThanOrEqual(0);
      expect(n).toBeLessThanOrEqual(1);
    }));
  });
}
