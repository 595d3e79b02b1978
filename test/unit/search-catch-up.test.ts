// The background catch-up of the tuple search on the twins: a pass repeats while batches come back full, the loop
// leaves no tuple unsearchable for long, and stop ends it.
import { createLogger } from '../../src/log.js';
import { CATCH_UP_BATCH, SearchCatchUp } from '../../src/services/authorization/search-catch-up.js';
import { memoryGraphStore } from '../../src/stores/memory/graph.js';
import { MemoryGraph } from '../../src/stores/memory/graph-state.js';
import { memoryTupleListing } from '../../src/stores/memory/tuple-listing.js';

const log = createLogger('silent');
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

function twins() {
  const g = new MemoryGraph();
  const graph = memoryGraphStore(g);
  const listing = memoryTupleListing(g);
  const write = (from: number, n: number) =>
    graph.sync(Array.from({ length: n }, (_, i) => ({
      tuple: { subject: `User:u${from + i}`, relation: 'member', resource: 'Team:t' },
      grant: false,
      present: true,
    })));
  const unsearchable = () => [...g.tuples.values()].filter((e) => !e.searchable).length;
  return { g, listing, write, unsearchable };
}

describe('tuple search catch-up', () => {
  it('a pass takes batch after batch until one comes back short', async () => {
    const { listing, write, unsearchable } = twins();
    await write(0, CATCH_UP_BATCH + 7);
    let calls = 0;
    const counted = { ...listing, catchUp: (n: number) => {
      calls++;
      return listing.catchUp(n);
    } };
    expect(await new SearchCatchUp(counted, log).pass()).toBe(CATCH_UP_BATCH + 7);
    expect(calls).toBe(2);
    expect(unsearchable()).toBe(0);
  });

  it('the loop catches up what is written while it runs, and stops', async () => {
    const { listing, write, unsearchable } = twins();
    const loop = new SearchCatchUp(listing, log, 20);
    loop.start();
    try {
      await write(0, 3);
      for (let i = 0; i < 100 && unsearchable() > 0; i++) await pause(10);
      expect(unsearchable()).toBe(0);
    } finally {
      await loop.stop();
    }
    await write(10, 2);
    await pause(100);
    expect(unsearchable()).toBe(2);
  });

  it('a failed pass is retried by the next one', async () => {
    const { listing, write, unsearchable } = twins();
    await write(0, 4);
    let failures = 1;
    const flaky = { ...listing, catchUp: async (n: number) => {
      if (failures-- > 0) throw new Error('Neo4j down');
      return listing.catchUp(n);
    } };
    const loop = new SearchCatchUp(flaky, log, 20);
    loop.start();
    try {
      for (let i = 0; i < 100 && unsearchable() > 0; i++) await pause(10);
      expect(unsearchable()).toBe(0);
      expect(failures).toBeLessThan(0);
    } finally {
      await loop.stop();
    }
  });
});
