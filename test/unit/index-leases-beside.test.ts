// IndexLeases.whileAllHeld, which the search catch-up runs its batches under: nothing while a unit holds a lease,
// the work once every lease is free, and every lease released after it (twin leases).
import { IndexLeases } from '../../src/services/authorization/index-leases.js';
import { MemoryHub } from '../../src/stores/memory/hub.js';
import { MemoryLease } from '../../src/stores/memory/lease.js';

const hub = new MemoryHub();
/** The leases of one process over the shared hub: a structure lease and three partitions. */
const processLeases = () => new IndexLeases(new MemoryLease(hub, 'index:structure', 2000), [0, 1, 2].map((i) => new MemoryLease(hub, `index:p${i}`, 2000)));

it('runs the work only while no unit holds any index lease, and frees them all after', async () => {
  const unitSide = processLeases();
  const catchUp = processLeases();
  const unit = await unitSide.acquire({ partitions: [2], structure: false }, 100);
  let ran = 0;
  expect(await catchUp.whileAllHeld(async () => ++ran, 50)).toBeNull();
  expect(ran).toBe(0);
  await unitSide.release(unit);
  expect(await catchUp.whileAllHeld(async () => ++ran, 50)).toBe(1);
  // All free again: a unit takes every lease at once.
  const all = await unitSide.acquire(unitSide.everything(), 50);
  expect(all).toHaveLength(4);
  await unitSide.release(all);
});

it('frees the leases when the work fails', async () => {
  const catchUp = processLeases();
  await expect(catchUp.whileAllHeld(async () => {
    throw new Error('Neo4j down');
  }, 50)).rejects.toThrow('Neo4j down');
  const other = processLeases();
  expect(await other.whileAllHeld(async () => 'ran', 50)).toBe('ran');
});
