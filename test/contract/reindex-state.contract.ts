// The re-index state contract: begun re-indexes are listed to every process until ended. Twin and Redis.
import type { PendingReindex, ReindexState } from '../../src/stores/ports/reindex-state.js';

export function reindexStateContract(make: () => Promise<{ state(): ReindexState; cleanup(): Promise<void> }>) {
  let h: Awaited<ReturnType<typeof make>>;
  beforeEach(async () => {
    h = await make();
  });
  afterEach(async () => {
    await h.cleanup();
  });
  const byRevision = (list: PendingReindex[]) => [...list].sort((x, y) => x.revision - y.revision);

  describe('re-index state', () => {
    it('lists begun re-indexes (one per revision, the last begin wins) until they end', async () => {
      const [a, b] = [h.state(), h.state()];
      expect(await a.all()).toEqual([]);
      const one: PendingReindex = { revision: 5, type: 'Doc', affected: ['Doc', 'Folder'], at: 1000 };
      const two: PendingReindex = { revision: 9, type: 'Folder', affected: [], at: 2000 };
      await a.begin(one);
      await a.begin(two);
      await a.begin({ ...one, at: 1500 });
      expect(byRevision(await b.all())).toEqual([{ ...one, at: 1500 }, two]);
      await b.end([]);
      await b.end([5, 77]);
      expect(await a.all()).toEqual([two]);
    });
  });
}
