// The change feed's paging rules on a log held in memory: settled revisions only, gaps waited for, entries never split.
import { ChangeFeed } from '../../src/services/authorization/change-feed.js';
import type { Revisions } from '../../src/services/authorization/revisions.js';
import type { ChangeEntry, ChangeLog } from '../../src/stores/ports/change-log.js';

const NOW = 1_000_000;
const entry = (revision: number, ageMs: number, tuples = [`User:u${revision}#viewer@Doc:d`]): ChangeEntry => ({ revision, kind: 'tuples', op: 'add', tuples,
  at: new Date(NOW - ageMs) });

function feed(entries: ChangeEntry[], settled: number) {
  const log = {
    between: async (after: number, upTo: number, limit: number) => entries.filter((e) => e.revision > after && e.revision <= upTo).slice(0, limit),
  } as unknown as ChangeLog;
  return new ChangeFeed(log, { settled: async () => settled, latest: async () => settled } as unknown as Revisions, () => NOW);
}

describe('change feed paging', () => {
  it('serves only settled revisions', async () => {
    const f = feed([entry(1, 0), entry(2, 0), entry(3, 0)], 2);
    expect((await f.page(0, 10)).changes.map((c) => c.revision)).toEqual([1, 2]);
    expect((await f.page(0, 10)).next).toBe(2);
  });

  it('waits at a young gap and passes an old one', async () => {
    expect(await feed([entry(1, 0), entry(3, 100)], 3).page(0, 10)).toMatchObject({ next: 1 });
    expect((await feed([entry(1, 0), entry(3, 60_000)], 3).page(0, 10)).next).toBe(3);
    // A gap right after the cursor counts too.
    expect((await feed([entry(5, 100)], 5).page(3, 10)).next).toBe(3);
  });

  it('never splits an entry, and a page of one entry may hold more than the limit', async () => {
    const big = entry(2, 0, ['User:a#viewer@Doc:1', 'User:b#viewer@Doc:1', 'User:c#viewer@Doc:1']);
    const f = feed([entry(1, 0), big, entry(3, 0)], 3);
    expect(await f.page(0, 2)).toMatchObject({ next: 1, changes: [{ revision: 1 }] });
    const second = await f.page(1, 2);
    expect(second.next).toBe(2);
    expect(second.changes).toHaveLength(3);
  });

  it('shows a mixed write (/relations/write) as its creates and deletes at one revision, in the order written', async () => {
    const mixed: ChangeEntry = { revision: 1, kind: 'tuples', op: 'write', at: new Date(NOW), tuples: ['User:a#viewer@Doc:1', 'User:b#viewer@Doc:1', 'User:c#viewer@Doc:2'],
      deleted: ['User:b#viewer@Doc:1'] };
    const gone: ChangeEntry = { revision: 2, kind: 'tuples', op: 'delete', at: new Date(NOW), tuples: ['User:a#viewer@Doc:1'] };
    expect((await feed([mixed, gone], 2).page(0, 10)).changes.map((c) => [c.revision, c.op, c.tuple])).toEqual([
      [1, 'create', 'User:a#viewer@Doc:1'],
      [1, 'delete', 'User:b#viewer@Doc:1'],
      [1, 'create', 'User:c#viewer@Doc:2'],
      [2, 'delete', 'User:a#viewer@Doc:1'],
    ]);
  });

  it('moves past entries that stand for no change (rebuild requests)', async () => {
    const f = feed([{ revision: 1, kind: 'reconstruct', op: 'soft', at: new Date(NOW) }, entry(2, 0)], 2);
    expect(await f.page(0, 10)).toMatchObject({ next: 2, changes: [{ revision: 2 }] });
  });
});

describe('change feed frontier', () => {
  it('heals marks left in the fast copy when the frontier stays below the latest revision', async () => {
    let settled = 1;
    let now = NOW;
    const healed: number[] = [];
    const log = {
      between: async (after: number, upTo: number) => [entry(1, 0), entry(2, 0)].filter((e) => e.revision > after && e.revision <= upTo),
      heal: async (upTo: number) => {
        healed.push(upTo);
        settled = 2;
      },
    } as unknown as ChangeLog;
    const f = new ChangeFeed(log, { settled: async () => settled, latest: async () => 2 } as unknown as Revisions, () => now);
    expect((await f.page(0, 10)).next).toBe(1);
    now += 300;
    expect((await f.page(1, 10)).next).toBe(2);
    expect(healed).toEqual([2]);
  });
});
