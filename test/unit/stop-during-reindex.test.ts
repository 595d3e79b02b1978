// A service stopped while a definition's re-index runs: stop waits for the re-index, so nothing of it runs after (on the
// twins). Found as a timer left open in CI: the re-index's last publish came after the bus had left, and slept a lease.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Stores } from '../../src/stores/ports/stores.js';
import { startService } from '../support/service.js';

/**
 * The re-index's last step, marking it ended in the shared state, held while `gate` is set: each revision whose end
 * began, and each whose end returned. The chat module's own definition is re-indexed at start too; the test follows
 * the revision of its own definition only.
 */
let gate: Promise<void> | null = null;
const begun = new Set<number>();
const returned = new Set<number>();
const heldEnd = (s: Stores): Stores => ({
  ...s,
  reindexState: {
    ...s.reindexState,
    async end(revisions) {
      revisions.forEach((r) => begun.add(r));
      if (gate) await gate;
      await s.reindexState.end(revisions);
      revisions.forEach((r) => returned.add(r));
    },
  },
});

it('stop resolves only once the re-index under way has ended, and no work of it is left running', async () => {
  const svc = await startService({}, { memory: true, wrapStores: heldEnd });
  let release!: () => void;
  gate = new Promise<void>((r) => {
    release = r;
  });
  const def = { name: 'Crate', relations: { holder: ['User'] }, permissions: { open: ['holder'] } };
  const put = await svc.http('POST', '/authorization/resources', { body: def });
  expect(put.status).toBe(200);
  const revision = put.body.revision as number;
  // A new type has nothing to re-index: its re-index goes straight to its last step, held here.
  for (let i = 0; i < 500 && !begun.has(revision); i++) await sleep(10);
  expect(begun.has(revision)).toBe(true);
  let stopped = false;
  const stopping = svc.stop().then(() => {
    stopped = true;
  });
  // Without the wait for the re-index, stop resolved here with the end still held (and its publish still to come).
  await sleep(1000);
  expect(stopped).toBe(false);
  release();
  await stopping;
  expect(returned.has(revision)).toBe(true);
  gate = null;
});
