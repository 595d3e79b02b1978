// Every conformance case through the admin HTTP API, in the write orders given, eight cases replayed at once.
import { replay } from './replay.js';
import { loadCases } from './scenarios.js';
import { startService, type TestService } from './service.js';

const AT_ONCE = 8;

/** The suite for one file: its service starts on the stores of the file's tier (the twins or the real servers). */
export function conformanceSuite(orders: number[]) {
  let svc: TestService;
  // Lists longer than 3 are counted and paged in the index; shorter ones are read whole: both ways are replayed.
  beforeAll(async () => {
    svc = await startService({ LIST_WHOLE: '3' });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const totals = { checks: 0, lists: 0 };
  const cases = loadCases().map((c, i) => ({ ...c, i }));
  const groups = Array.from({ length: Math.ceil(cases.length / AT_ONCE) }, (_, g) => cases.slice(g * AT_ONCE, (g + 1) * AT_ONCE));

  describe.each(orders)('write order %i', (seed) => {
    it.each(groups.map((g) => [g.map((c) => c.file).join(', '), g] as const))('%s', async (_names, group) => {
      // Concurrent replays share the server, its revision counter and its index lease, as real clients do.
      const results = await Promise.all(group.map(({ scenario, i }) => replay(svc, scenario, `c${i}s${seed}_`, seed + i)));
      for (const stats of results) {
        totals.checks += stats.checks;
        totals.lists += stats.lists;
        expect(stats.problems).toEqual([]);
        expect(stats.checks + stats.lists).toBeGreaterThan(0);
      }
    }, 300_000);
  });

  afterAll(() => {
    process.stderr.write(`conformance: ${totals.checks} checks and ${totals.lists} list queries over HTTP\n`);
  });
}
