// A store that fails every unit of index work (a Neo4j down) fills no log: a failed batch is one warning, and its retries
// by each recovery pass are counted into the next, not logged one by one (on the twins).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Stores } from '../../src/stores/ports/stores.js';
import { startService } from '../support/service.js';

let down = false;
let attempts = 0;
const failingGraph = (s: Stores): Stores => ({
  ...s,
  graph: {
    ...s.graph,
    async sync(changes, mark) {
      if (down) {
        attempts++;
        throw new Error('Neo4j unavailable (test)');
      }
      return s.graph.sync(changes, mark);
    },
  },
});

it('logs a failing batch once, and the recovery passes retrying it within the window not at all', async () => {
  const logLines: string[] = [];
  const svc = await startService({}, { memory: true, wrapStores: failingGraph, logLines });
  try {
    const def = { name: 'Crate', relations: { holder: ['User'] }, permissions: { open: ['holder'] } };
    expect((await svc.http('POST', '/authorization/resources', { body: def })).status).toBe(200);
    down = true;
    // Forty bulk writes: each is stored and answered at once, and its index work fails.
    for (let i = 0; i < 40; i++) {
      const r = await svc.http('POST', '/authorization/relations/many', { body: { subject: `User:u${i}`, relation: 'holder', resources: [`Crate:c${i}`, `Crate:d${i}`] } });
      expect(r.status).toBe(200);
    }
    // Recovery passes run each second and retry every failed entry.
    const retried = attempts;
    for (let i = 0; i < 100 && attempts < retried + 3; i++) await sleep(50);
    await sleep(2500);
    expect(attempts).toBeGreaterThan(retried + 2);
    const warnings = logLines.filter((l) => l.includes('apply failed')).map((l) => JSON.parse(l) as { err: string; entries: number });
    // One line per entry, each pass, was 40 and more here; now the first failure, and nothing more within 10 s.
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    expect(warnings.length).toBeLessThanOrEqual(2);
    expect(warnings[0]).toMatchObject({ err: 'Neo4j unavailable (test)' });
    // Back up: the entries are indexed by the next passes.
    down = false;
    for (let i = 0; i < 100; i++) {
      const s = await svc.http('GET', '/authorization/indexer/status');
      if (s.body.pending === 0) break;
      await sleep(100);
    }
    const can = await svc.http('GET', '/authorization/permissions/can?subject=User:u39&permission=open&resource=Crate:d39');
    expect(can.body).toMatchObject({ allowed: true });
  } finally {
    await svc.stop();
  }
});
