// IndexLeases.whileAllHeld, which the search catch-up runs its batches under: nothing while a unit holds a lease,
// the work once every lease is free, and every lease released after it (twin leases).
import { IndexLeases } from '../../src/services/authorization/index-leases.js';
import { MemoryHub } from '../../src/stores/memory/hub.js';
import { MemoryLease } from '../../src/stores/memory/lease.js';

// Each case has its own hub: a case that fails holding leases leaves the next one free.
let hub: MemoryHub;
beforeEach(() => {
  hub = new MemoryHub();
});
/** The leases of one process over the case's hub: a structure lease and three partitions. */
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

// Found reading whileAllHeld: it took the leases in order, waiting up to its limit for each, so while one unit held the
// last partition it held the structure and every partition before it, and a write needing one of them waited.
it('holds no lease while it waits for the rest: a unit asking for one it would have taken first gets it at once', async () => {
  const unitSide = processLeases();
  const writer = processLeases();
  const catchUp = processLeases();
  const last = await unitSide.acquire({ partitions: [2], structure: false }, 100);
  let ran = 0;
  const waiting = catchUp.whileAllHeld(async () => ++ran, 1500);
  await new Promise((r) => setTimeout(r, 50));
  const first = await writer.acquire({ partitions: [0], structure: true }, 100);
  expect(ran).toBe(0);
  await writer.release(first);
  await unitSide.release(last);
  expect(await waiting).toBe(1);
});

it('takes none when one is taken, and all of them once they are free', async () => {
  const unitSide = processLeases();
  const catchUp = processLeases();
  const unit = await unitSide.acquire({ partitions: [1], structure: false }, 100);
  expect(await catchUp.tryAll(catchUp.everything())).toBeNull();
  // The ones it tried were given back: another unit of the catch-up's side takes them without waiting.
  const freed = await catchUp.acquire({ partitions: [0], structure: true }, 10);
  await catchUp.release(freed);
  await unitSide.release(unit);
  const all = await catchUp.tryAll(catchUp.everything());
  expect(all).toHaveLength(4);
  await catchUp.release(all!);
});

it('in turn, it waits for a taken lease as a unit does, and runs once it is given back', async () => {
  const unitSide = processLeases();
  const catchUp = processLeases();
  const unit = await unitSide.acquire({ partitions: [1], structure: false }, 100);
  setTimeout(() => void unitSide.release(unit), 100);
  expect(await catchUp.whileAllHeld(async () => 'ran', 1500, true)).toBe('ran');
  const held = await unitSide.acquire({ partitions: [2], structure: false }, 100);
  expect(await catchUp.whileAllHeld(async () => 'ran', 50, true)).toBeNull();
  await unitSide.release(held);
});
