// The background catch-up of the tuple search on the twins: a pass repeats while batches come back full, the loop
// leaves no tuple unsearchable for long, and stop ends it.
import { createLogger } from '../../src/log.js';
import { CATCH_UP_BATCH, INSIST_AFTER_PASSES, SearchCatchUp } from '../../src/services/authorization/search-catch-up.js';
import { memoryGraphStore } from '../../src/stores/memory/graph.js';
import { MemoryGraph } from '../../src/stores/memory/graph-state.js';
import { memoryTupleListing } from '../../src/stores/memory/tuple-listing.js';
import { randomBytes } from 'node:crypto';
import { createApp, portOf } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { OFFLINE_ENV } from '../../src/offline-documents.js';
import { memoryStores } from '../../src/stores/memory/stores.js';
import { MemoryHub } from '../../src/stores/memory/hub.js';
import { MemoryLease } from '../../src/stores/memory/lease.js';

const log = createLogger('silent');
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

const hub = new MemoryHub();
let leases = 0;
/** Each test its own lease name; two made with one name stand for two processes. */
const leaseOf = (name = `catch-up-${++leases}`) => new MemoryLease(hub, name, 2000);
/** Between units as the wiring runs it, with one lease standing for every index lease: null while it is taken. */
const besideOf = (lease = leaseOf()) => async <T>(work: () => Promise<T>): Promise<T | null> => {
  if (!(await lease.tryAcquire())) return null;
  try {
    return await work();
  } finally {
    await lease.release();
  }
};

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
    expect(await new SearchCatchUp(counted, besideOf(), log).pass()).toBe(CATCH_UP_BATCH + 7);
    expect(calls).toBe(2);
    expect(unsearchable()).toBe(0);
  });

  it('the loop catches up what is written while it runs, and stops', async () => {
    const { listing, write, unsearchable } = twins();
    const loop = new SearchCatchUp(listing, besideOf(), log, 20);
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
    const loop = new SearchCatchUp(flaky, besideOf(), log, 20);
    loop.start();
    try {
      for (let i = 0; i < 100 && unsearchable() > 0; i++) await pause(10);
      expect(unsearchable()).toBe(0);
      expect(failures).toBeLessThan(0);
    } finally {
      await loop.stop();
    }
  });

  it('after passes that all found the leases taken, the next one waits for them in turn, and the count starts over', async () => {
    const { listing, write, unsearchable } = twins();
    await write(0, 2);
    const asked: boolean[] = [];
    // Units never leave every lease free at once: only a pass that waits in turn gets them.
    const busy = async <T>(work: () => Promise<T>, insist: boolean): Promise<T | null> => {
      asked.push(insist);
      return insist ? work() : null;
    };
    const loop = new SearchCatchUp(listing, busy, log);
    for (let i = 0; i < INSIST_AFTER_PASSES; i++) expect(await loop.pass()).toBe(0);
    expect(await loop.pass()).toBe(2);
    expect(unsearchable()).toBe(0);
    await write(2, 1);
    expect(await loop.pass()).toBe(0);
    expect(asked).toEqual([...Array(INSIST_AFTER_PASSES).fill(false), true, false]);
  });

  it('between units: a pass while a unit holds the leases does nothing, and they are free after a pass', async () => {
    const { listing, write, unsearchable } = twins();
    await write(0, 3);
    const other = leaseOf('catch-up-shared');
    expect(await other.tryAcquire()).toBe(true);
    const mine = new SearchCatchUp(listing, besideOf(leaseOf('catch-up-shared')), log);
    expect(await mine.pass()).toBe(0);
    expect(unsearchable()).toBe(3);
    await other.release();
    expect(await mine.pass()).toBe(3);
    expect(await other.tryAcquire()).toBe(true);
    await other.release();
  });
});

describe('tuple search catch-up when idle', () => {
  it('an idle pass takes no lease: with nothing pending it does not ask for them', async () => {
    const { listing, write } = twins();
    let asked = 0;
    const counting = async <T>(work: () => Promise<T>): Promise<T | null> => {
      asked++;
      return work();
    };
    const loop = new SearchCatchUp(listing, counting, log);
    expect(await loop.pass()).toBe(0);
    expect(asked).toBe(0);
    await write(0, 1);
    expect(await loop.pass()).toBe(1);
    expect(await loop.pass()).toBe(0);
    expect(asked).toBe(1);
  });
});

it('the service runs the catch-up: a tuple written and never searched is put in the text index', async () => {
  const stores = memoryStores();
  const caughtUp: number[] = [];
  const listing = stores.tupleListing;
  const counted = { ...stores, tupleListing: { ...listing, catchUp: async (n: number) => {
    const got = await listing.catchUp(n);
    caughtUp.push(got);
    return got;
  } } };
  const masterKey = randomBytes(24).toString('hex');
  const app = await createApp(loadConfig({ ...OFFLINE_ENV, MASTER_KEY: masterKey, ADMIN_PORT: '0', CLIENT_PORT: '0', GRPC_PORT: '0', SOCKET_PORT: '0' }), log, { stores: counted });
  try {
    const admin = `http://127.0.0.1:${portOf(await app.listen(), 'admin')}`;
    const post = (path: string, body: unknown) =>
      fetch(admin + path, { method: 'POST', headers: { masterkey: masterKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post('/authorization/resources', { name: 'Doc', relations: { viewer: ['User'] }, permissions: { read: ['viewer'] } })).status).toBe(200);
    expect((await post('/authorization/relations', { subject: 'User:ann', relation: 'viewer', resource: 'Doc:plan' })).status).toBe(201);
    for (let i = 0; i < 100 && !caughtUp.some((n) => n > 0); i++) await pause(50);
    expect(caughtUp.reduce((a, b) => a + b, 0)).toBe(1);
  } finally {
    await app.close();
  }
}, 30_000);
