// A hard rebuild lets writes' index units go between its batches: a write made while a batch runs waits for that batch
// and its own units, not for more batches, in the process running the rebuild and in another one. Projection syncs are
// made as slow as on a loaded Neo4j (a rebuild batch's BATCH_MS, a unit's UNIT_MS) so that batches can be counted.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Stores } from '../../src/stores/ports/stores.js';
import { waitIdle } from '../support/converge.js';
import { startService, type TestService } from '../support/service.js';

const BATCH_MS = 500;
/** On the twins a unit takes no time, and the rebuild's next batch could never take the leases between two of them. */
const UNIT_MS = 50;
const SEEDED = 5000;

/** Rebuild batches begun (in any process); the next one's start, when a test waits for it. */
let begun = 0;
let nextBatch: ((owner: string) => void) | null = null;
/** For each revision the index has applied: how many rebuild batches had begun by then. */
const appliedAfter = new Map<number, number>();

/**
 * The twins with projection syncs slowed down (a rebuild batch's is the only one that carries a mark), and the change
 * log telling when each revision is applied.
 */
const slowBatches = (name: string) => (s: Stores): Stores => ({
  ...s,
  changeLog: {
    ...s.changeLog,
    async done(revisions) {
      await s.changeLog.done(revisions);
      for (const r of revisions) appliedAfter.set(r, begun);
    },
  },
  graph: {
    ...s.graph,
    async sync(changes, mark) {
      if (mark !== undefined) {
        begun++;
        nextBatch?.(name);
        await sleep(BATCH_MS);
      } else await sleep(UNIT_MS);
      return s.graph.sync(changes, mark);
    },
  },
});

let a: TestService;
let b: TestService;
const folderDef = { name: 'Folder', relations: { parent: ['Folder'], viewer: ['User'] }, permissions: { view: ['viewer', 'parent->view'] } };

beforeAll(async () => {
  a = await startService({}, { memory: true, wrapStores: slowBatches('a') });
  // Another process of the same deployment: the same stores, its own applier.
  b = await startService({ MASTER_KEY: a.config.MASTER_KEY }, { memory: true, wipe: false, wrapStores: slowBatches('b') });
  expect((await a.http('POST', '/authorization/resources', { body: folderDef })).status).toBe(200);
  const updates = Array.from({ length: SEEDED }, (_, i) => ({ operation: 'create', subject: `User:u${i % 50}`, relation: 'viewer', resource: `Folder:f${i}` }));
  for (let at = 0; at < updates.length; at += 500) {
    expect((await a.http('POST', '/authorization/relations/write', { body: { updates: updates.slice(at, at + 500) } })).status).toBe(200);
  }
}, 120_000);
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

/**
 * Starts a hard rebuild and, as its second batch begins, writes a plain tuple and an arrow tuple (two units) through the
 * runner of the rebuild or the other process: how many more batches began before the write was indexed.
 */
async function batchesDuringWrite(through: 'runner' | 'other', tag: string): Promise<number> {
  let seen = 0;
  const second = new Promise<string>((resolve) => {
    nextBatch = (owner) => {
      if (++seen === 2) resolve(owner);
    };
  });
  expect((await a.http('POST', '/authorization/indexer/reconstruct', { body: {} })).status).toBe(200);
  const runner = await second;
  nextBatch = null;
  const svc = (through === 'runner') === (runner === 'a') ? a : b;
  const before = begun;
  const r = await svc.http('POST', '/authorization/relations/write', { body: { updates: [
    { operation: 'create', subject: `User:w${tag}`, relation: 'viewer', resource: `Folder:new${tag}` },
    { operation: 'create', subject: `Folder:new${tag}`, relation: 'parent', resource: 'Folder:f7' },
  ] } });
  expect(r.status).toBe(200);
  // A write is answered once stored; a fully consistent check through the same process waits until it is indexed.
  const q = new URLSearchParams({ subject: `User:w${tag}`, permission: 'view', resource: 'Folder:f7', consistency: 'fully_consistent' });
  expect((await svc.http('GET', `/authorization/permissions/can?${q}`)).body.allowed).toBe(true);
  const during = appliedAfter.get(r.body.revision as number)! - before;
  await waitIdle((m, p) => a.http(m, p), 60_000);
  // The write is in the new generation too.
  expect((await a.http('GET', `/authorization/permissions/can?${q}`)).body.allowed).toBe(true);
  return during;
}

it('a write through the process running the rebuild waits for no batch after the one under way', async () => {
  expect([await batchesDuringWrite('runner', 'r1'), await batchesDuringWrite('runner', 'r2')]).toEqual([0, 0]);
}, 120_000);

it('a write through another process waits for at most one batch after the one under way', async () => {
  const during = [await batchesDuringWrite('other', 'o1'), await batchesDuringWrite('other', 'o2')];
  expect({ during, over: during.filter((n) => n > 1) }).toEqual({ during, over: [] });
}, 120_000);
