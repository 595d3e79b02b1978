// The read batcher: alone when idle, grouped while busy, answers matched to their reads, failures to every read of the group.
import { Batcher } from '../../src/stores/neo4j/batcher.js';

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { open, opened };
}

it('answers an idle read alone, and groups the reads asked while the slots are busy', async () => {
  const calls: string[][] = [];
  const g = gate();
  const b = new Batcher<string, string>(
    async ([q]) => {
      calls.push([q]);
      await g.opened;
      return [`one:${q}`];
    },
    async (qs) => {
      calls.push(qs);
      return qs.map((q) => `many:${q}`);
    },
    1,
    3,
  );
  const first = b.ask('a');
  const rest = ['b', 'c', 'd', 'e'].map((q) => b.ask(q));
  expect(calls).toEqual([['a']]);
  g.open();
  expect(await first).toBe('one:a');
  expect(await Promise.all(rest)).toEqual(['many:b', 'many:c', 'many:d', 'one:e']);
  expect(calls).toEqual([['a'], ['b', 'c', 'd'], ['e']]);
});

it('runs up to `parallel` queries at once, and a failed query fails each of its reads', async () => {
  let running = 0;
  let most = 0;
  const b = new Batcher<number, number>(
    async ([q]) => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      if (q < 0) throw new Error('bad');
      return [q * 2];
    },
    async (qs) => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      if (qs.some((q) => q < 0)) throw new Error('bad');
      return qs.map((q) => q * 2);
    },
    2,
    4,
  );
  const results = await Promise.allSettled([1, 2, 3, -1, 5, 6, 7, 8, 9].map((q) => b.ask(q)));
  expect(most).toBe(2);
  const ok = results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<number>).value);
  const failed = results.filter((r) => r.status === 'rejected').length;
  // 1 and 2 alone; then 3, -1, 5, 6 together (failed); then 7, 8, 9.
  expect(failed).toBe(4);
  expect(ok).toEqual([2, 4, 14, 16, 18]);
});

it('a failure also fails the reads still waiting, at once, instead of one timeout after another', async () => {
  let calls = 0;
  const b = new Batcher<number, number>(
    async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 5));
      throw new Error('store down');
    },
    async () => {
      calls++;
      throw new Error('store down');
    },
    1,
    64,
  );
  const results = await Promise.allSettled([1, 2, 3, 4].map((q) => b.ask(q)));
  expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
  expect(calls).toBe(1);
});
