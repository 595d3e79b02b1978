// Every conformance case replayed through two service processes at once (each request to the next one), with four index partitions.
import { replay } from '../support/replay.js';
import { loadCases } from '../support/scenarios.js';
import { startService, type TestService } from '../support/service.js';

let a: TestService;
let b: TestService;
/** One client's view of two processes: requests alternate between them, as behind a round-robin balancer. */
let both: TestService;
beforeAll(async () => {
  a = await startService({ LIST_WHOLE: '3', INDEX_PARTITIONS: '4' });
  b = await startService({ LIST_WHOLE: '3', INDEX_PARTITIONS: '4', MASTER_KEY: a.config.MASTER_KEY }, { wipe: false });
  let turn = 0;
  both = { ...a, http: (method, path, opts) => (turn++ % 2 === 0 ? a : b).http(method, path, opts) };
}, 60_000);
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

const AT_ONCE = 8;
const cases = loadCases().map((c, i) => ({ ...c, i }));
const groups = Array.from({ length: Math.ceil(cases.length / AT_ONCE) }, (_, g) => cases.slice(g * AT_ONCE, (g + 1) * AT_ONCE));

// A write through one process, the next read through the other: answers must hold as the write returns, and right
// after a redefinition (no settle time), whichever process answers.
it.each(groups.map((g) => [g.map((c) => c.file).join(', '), g] as const))('%s', async (_names, group) => {
  const results = await Promise.all(group.map(({ scenario, i }) => replay(both, scenario, `d${i}_`, 101 + i)));
  for (const stats of results) {
    expect(stats.problems).toEqual([]);
    expect(stats.checks + stats.lists).toBeGreaterThan(0);
  }
}, 300_000);
