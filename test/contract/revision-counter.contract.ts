// The revision counter contract: revisions handed out in order, the pending set and its frontier, which nobody trusts
// after the store lost its data until it is rebuilt. Twin and Redis.
import type { RevisionCounter } from '../../src/stores/ports/change-log.js';

export interface RevisionCounterHarness {
  /** The counter of one process; every call gives another process on the same store. */
  counter(): RevisionCounter;
  /** The store loses everything (a Redis restarted without its data). */
  loseAll(): Promise<void>;
  cleanup(): Promise<void>;
}

export function revisionCounterContract(make: () => Promise<RevisionCounterHarness>) {
  let h: RevisionCounterHarness;
  beforeEach(async () => {
    h = await make();
  });
  afterEach(async () => {
    await h.cleanup();
  });

  describe('revision counter', () => {
    it('hands out increasing revisions to every process; take marks them pending, next does not', async () => {
      const a = h.counter();
      const b = h.counter();
      expect(await a.current()).toBe(0);
      expect(await a.next()).toBe(1);
      expect(await b.take()).toBe(2);
      expect(await a.take()).toBe(3);
      expect(await b.current()).toBe(3);
      expect(await a.marked(100, 100)).toEqual([{ member: '2', revision: 2 }, { member: '3', revision: 3 }]);
    });

    it('has no frontier until the pending set is rebuilt, then the latest and the oldest pending revision', async () => {
      const a = h.counter();
      await a.take();
      expect(await a.frontier()).toBeNull();
      await a.rebuild([]);
      expect(await a.frontier()).toEqual({ latest: 1, oldest: 1 });
      await a.take();
      await a.settle([1]);
      expect(await h.counter().frontier()).toEqual({ latest: 2, oldest: 2 });
      await a.settle([2]);
      expect(await a.frontier()).toEqual({ latest: 2, oldest: null });
      await a.rebuild([1]);
      expect(await a.frontier()).toEqual({ latest: 2, oldest: 1 });
    });

    it('keeps a confirmation apart from its take-mark: dropping one leaves the other; settle removes both', async () => {
      const a = h.counter();
      const r = await a.take();
      await a.take();
      await a.confirm(r);
      expect(await a.marked(r, 10)).toEqual([{ member: String(r), revision: r }, { member: `c${r}`, revision: r }]);
      expect(await a.marked(r + 1, 2)).toHaveLength(2);
      await a.dropMarks([String(r)]);
      expect(await a.marked(r, 10)).toEqual([{ member: `c${r}`, revision: r }]);
      await a.rebuild([]);
      expect((await a.frontier())?.oldest).toBe(r);
      await a.settle([r]);
      expect(await a.marked(r, 10)).toEqual([]);
      expect((await a.frontier())?.oldest).toBe(r + 1);
    });

    it('raise only ever raises the counter', async () => {
      const a = h.counter();
      await a.raise(10);
      expect(await a.current()).toBe(10);
      await a.raise(5);
      expect(await a.current()).toBe(10);
      expect(await a.take()).toBe(11);
    });

    it('after the store lost its data: no frontier, even though the set looks empty, until a rebuild', async () => {
      const a = h.counter();
      await a.take();
      await a.rebuild([]);
      expect(await a.frontier()).not.toBeNull();
      await h.loseAll();
      await a.raise(7);
      expect(await a.frontier()).toBeNull();
      await a.rebuild([7]);
      expect(await a.frontier()).toEqual({ latest: 7, oldest: 7 });
    });
  });
}
