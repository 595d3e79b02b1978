// Contract of RebuildStateStore: nothing requested at first, then the state last put, whole.
import type { RebuildState, RebuildStateStore } from '../../src/stores/ports/rebuild-state.js';
import { instants, withStore, type Make } from './harness.js';

const [t0, t1] = instants(2);

export function rebuildStateContract(make: Make<RebuildStateStore>) {
  const t = withStore(make);
  describe('RebuildStateStore', () => {
    it('is empty before the first put', t(async ({ store }) => {
      expect(await store.get()).toEqual({ requested: null, running: null });
    }));

    it('answers the state last put, replaced whole', t(async ({ store }) => {
      const running: RebuildState = {
        requested: { soft: true, revision: 9, at: t1! },
        running: { soft: false, revision: 7, at: t0!, owner: 'p1', gen: 3, startedAt: t0!, phase: 'tuples', done: 10, total: 40 },
      };
      await store.put({ requested: { soft: false, revision: 5, at: t0! }, running: null });
      await store.put(running);
      expect(await store.get()).toEqual(running);
      await store.put({ requested: null, running: null });
      expect(await store.get()).toEqual({ requested: null, running: null });
    }));
  });
}
