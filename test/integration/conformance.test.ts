// Every conformance case through the admin HTTP API, each in three shuffled write orders.
import { replay } from '../support/replay.js';
import { loadCases } from '../support/scenarios.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
beforeAll(async () => { svc = await startService(); });
afterAll(async () => { await svc?.stop(); });

const ORDERS = [11, 22, 33];
const totals = { checks: 0, lists: 0 };

describe.each(loadCases().map((c, i) => ({ ...c, i })))('$file', ({ scenario, i }) => {
  it.each(ORDERS)('write order %i', async (seed) => {
    const stats = await replay(svc, scenario, `c${i}s${seed}_`, seed);
    totals.checks += stats.checks;
    totals.lists += stats.lists;
    expect(stats.problems).toEqual([]);
    expect(stats.checks + stats.lists).toBeGreaterThan(0);
  });
});

afterAll(() => { process.stderr.write(`conformance: ${totals.checks} checks and ${totals.lists} list queries over HTTP\n`); });
