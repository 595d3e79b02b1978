// A service stopped while a definition's re-index runs: stop waits for the re-index, so nothing of it runs after (on the
// twins). Found as a timer left open in CI: the re-index's last publish came after the bus had left, and slept a lease.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Stores } from '../../src/stores/ports/stores.js';
import { startService } from '../support/service.js';

/** Whether the re-index's last step, marking it ended in the shared state, is under way, and whether it returned. */
const ending = { begun: false, returned: false };
const slowEnd = (s: Stores): Stores => ({
  ...s,
  reindexState: {
    ...s.reindexState,
    async end(revisions) {
      ending.begun = true;
      await sleep(300);
      await s.reindexState.end(revisions);
      ending.returned = true;
    },
  },
});

it('stop resolves only once the re-index under way has ended, and no work of it is left running', async () => {
  const svc = await startService({}, { memory: true, wrapStores: slowEnd });
  const def = { name: 'Crate', relations: { holder: ['User'] }, permissions: { open: ['holder'] } };
  expect((await svc.http('POST', '/authorization/resources', { body: def })).status).toBe(200);
  // A new type has nothing to re-index: its re-index is at its last step once the call returns.
  for (let i = 0; i < 100 && !ending.begun; i++) await sleep(10);
  expect(ending.begun).toBe(true);
  await svc.stop();
  expect(ending.returned).toBe(true);
});
