// Three service processes share index work by partition; one is killed with SIGKILL mid-stream, the others take over its units, and the index converges.
import { Redis } from 'ioredis';
import { partitionOf } from '../../src/services/authorization/index-leases.js';
import { rng } from '../support/random.js';
import { childService, type ChildService } from '../support/child-service.js';
import { disagreements, readMongo, waitIdle } from '../support/converge.js';
import { wipe } from '../support/service.js';

const folderDef = {
  name: 'Folder',
  relations: { parent: ['Folder'], viewer: ['User', 'Team'], editor: ['User'] },
  permissions: { view: ['viewer', 'editor', 'viewer->read', 'parent->view'], edit: ['editor', 'parent->edit'] },
};
const TEAMS = ['Team:a', 'Team:b', 'Team:c', 'Team:d'];
const FOLDERS = Array.from({ length: 24 }, (_, i) => `Folder:f${i}`);

let procs: ChildService[] = [];
beforeAll(async () => {
  await wipe({ MONGO_URL: process.env.MONGO_URL!, NEO4J_URI: process.env.NEO4J_URI!, REDIS_URL: process.env.REDIS_URL! });
  procs = await Promise.all([0, 1, 2].map(() => childService({ INDEX_PARTITIONS: '4', INDEX_CONCURRENCY: '2', LEASE_TTL_MS: '6000' })));
  for (const p of procs) await p.start();
  expect((await procs[0]!.http('POST', '/authorization/resources', folderDef)).status).toBe(200);
}, 180_000);
afterAll(async () => {
  await Promise.all(procs.map((p) => p.kill('SIGTERM')));
});

/**
 * Takes an index lease for the test, waiting up to 10 s: the search catch-up holds every index lease for a moment on
 * each pass while tuples are marked for it (the writes before leave some), so a plain SET NX can meet it.
 */
async function holdLease(redis: Redis, lease: string): Promise<boolean> {
  for (const until = Date.now() + 10_000; Date.now() < until;) {
    if (await redis.set(lease, 'held-by-the-test', 'PX', 30_000, 'NX')) return true;
    await new Promise((res) => setTimeout(res, 20));
  }
  return false;
}

/** This process's count of units applied without the structure lease, from /metrics. */
async function plainUnits(p: ChildService): Promise<number> {
  const res = await fetch(`${p.admin}/metrics`, { headers: { masterkey: p.masterKey } });
  const line = (await res.text()).split('\n').find((l) => l.startsWith('authz_index_units_total{structure="false"}'));
  return line ? Number(line.split(' ').pop()) : 0;
}

it('every process applies units; after a kill -9 of one, the others recover its work and every acknowledged write is indexed', async () => {
  const r = rng(7);
  const acknowledged = new Map<string, boolean>();
  let stop = false;
  let writes = 0;
  const killed = procs[1]!;
  const stream = async (p: ChildService, w: number) => {
    const mine: Array<{ id: string; text: string }> = [];
    for (let i = 0; !stop; i++) {
      try {
        if (i % 4 === 3) {
          // A bulk write over many folders: its tuples fall in every partition.
          const subject = `User:p${w}u${i}`;
          const resources = r.shuffle(FOLDERS).slice(0, 12);
          const res = await p.http('POST', '/authorization/relations/many', { subject, relation: 'viewer', resources });
          if (res.status === 200) { for (const f of resources) acknowledged.set(`${subject}#viewer@${f}`, true); }
        } else if (i % 9 === 8 && mine.length) {
          const gone = mine.shift()!;
          acknowledged.delete(gone.text); // cut off by the kill, it may or may not have happened
          if ((await p.http('DELETE', `/authorization/relations/${gone.id}`)).status === 200) acknowledged.set(gone.text, false);
        } else {
          const body = i % 3 === 0
            ? { subject: r.pick(FOLDERS.slice(0, 12)), relation: 'parent', resource: r.pick(FOLDERS.slice(12)) }
            : i % 3 === 1 ? { subject: r.pick(TEAMS), relation: 'viewer', resource: r.pick(FOLDERS) }
            : { subject: `User:p${w}m${i}`, relation: r.pick(['member', 'owner']), resource: r.pick(TEAMS) };
          const res = await p.http('POST', '/authorization/relations', body);
          if (res.status === 201 && body.subject.startsWith('User:')) {
            mine.push({ id: res.body._id, text: res.body.computedTuple });
            acknowledged.set(res.body.computedTuple, true);
          }
        }
        writes++;
      } catch {
        if (p === killed) return; // the killed process's clients stop at the kill
        await new Promise((res) => setTimeout(res, 20));
      }
    }
  };
  const streams = procs.flatMap((p, i) => [stream(p, i * 2), stream(p, i * 2 + 1)]);
  while (writes < 30) await new Promise((res) => setTimeout(res, 20));
  // Wait (bounded, not timed) until every process has applied a unit of its own: on a loaded machine that can take far
  // longer than a fixed sleep, which made this assertion fail with nothing wrong.
  let beforeKill = await Promise.all(procs.map(plainUnits));
  for (const end = Date.now() + 90_000; !beforeKill.every((n) => n > 0) && Date.now() < end;) {
    await new Promise((res) => setTimeout(res, 200));
    beforeKill = await Promise.all(procs.map(plainUnits));
  }
  await new Promise((res) => setTimeout(res, r.int(0, 1500)));
  await killed.kill('SIGKILL');
  await new Promise((res) => setTimeout(res, 2000));
  stop = true;
  await Promise.all(streams);
  // Each process applied units of its own writes (index work is no longer one process at a time).
  expect(beforeKill.every((n) => n > 0)).toBe(true);

  // The survivors take the killed process's pending entries once its heartbeat expires.
  const live = [procs[0]!, procs[2]!];
  await waitIdle(live[0]!.http, 120_000);
  const state = await readMongo(process.env.MONGO_URL!);
  expect([...acknowledged].filter(([text, present]) => state.texts.has(text) !== present)).toEqual([]);
  const users = [...acknowledged.keys()].map((t) => t.slice(0, t.indexOf('#'))).filter((_, i) => i % 9 === 0).slice(0, 10);
  for (const p of live) {
    const problems = await disagreements(p.http, state, { subjects: [...users, ...TEAMS], resources: [...TEAMS, ...FOLDERS.filter((_, i) => i % 3 === 0)], types: ['Folder'] });
    expect(problems.slice(0, 20)).toEqual([]);
  }
}, 300_000);

it('a unit on one partition is applied while another partition is held, and the held one waits for its lease', async () => {
  const p = procs[0]!;
  const redis = new Redis(process.env.REDIS_URL!);
  try {
    const held = 'Folder:held';
    const free = Array.from({ length: 50 }, (_, i) => `Folder:free${i}`).find((f) => partitionOf(f, 4) !== partitionOf(held, 4))!;
    const lease = `authz:lease:index:p${partitionOf(held, 4)}`;
    expect(await holdLease(redis, lease)).toBe(true);
    try {
      const onFree = await p.http('POST', '/authorization/relations', { subject: 'User:x', relation: 'viewer', resource: free });
      expect(onFree.status).toBe(201);
      expect((await p.http('GET', `/authorization/permissions/can?subject=User:x&permission=view&resource=${free}`)).body.allowed).toBe(true);
      const onHeld = await p.http('POST', '/authorization/relations/many', { subject: 'User:x', relation: 'viewer', resources: [held] });
      expect(onHeld.status).toBe(200);
      await new Promise((res) => setTimeout(res, 1000));
      const waiting = await p.http('GET', `/authorization/permissions/can?subject=User:x&permission=view&resource=${held}`);
      expect(waiting.body.allowed).toBe(false); // committed, not indexed: its partition is held
    } finally {
      await redis.del(lease);
    }
    await waitIdle(p.http, 60_000);
    expect((await p.http('GET', `/authorization/permissions/can?subject=User:x&permission=view&resource=${held}`)).body.allowed).toBe(true);
  } finally {
    redis.disconnect();
  }
}, 120_000);

it('applies a later batch on a free partition while an earlier batch waits for its held lease, in one process (INDEX_CONCURRENCY)', async () => {
  const p = procs[0]!;
  const redis = new Redis(process.env.REDIS_URL!);
  const can = async (subject: string, resource: string) =>
    (await p.http('GET', `/authorization/permissions/can?subject=${subject}&permission=edit&resource=${resource}`)).body.allowed as boolean;
  try {
    const held = 'Folder:held2';
    // `editor` feeds no arrow, so neither batch takes the structure lease. The waiting batch holds its subject's partition
    // while it waits for the held one: the other batch needs neither.
    const waiter = 'User:y-waits';
    const busy = new Set([partitionOf(held, 4), partitionOf(waiter, 4)]);
    const free = Array.from({ length: 50 }, (_, i) => `Folder:other${i}`).find((f) => !busy.has(partitionOf(f, 4)))!;
    const other = Array.from({ length: 50 }, (_, i) => `User:y${i}`).find((u) => !busy.has(partitionOf(u, 4)))!;
    const lease = `authz:lease:index:p${partitionOf(held, 4)}`;
    expect(await holdLease(redis, lease)).toBe(true);
    try {
      expect((await p.http('POST', '/authorization/relations/many', { subject: waiter, relation: 'editor', resources: [held] })).status).toBe(200);
      await new Promise((res) => setTimeout(res, 500)); // its batch is taken and waits for the lease
      expect((await p.http('POST', '/authorization/relations/many', { subject: other, relation: 'editor', resources: [free] })).status).toBe(200);
      let applied = false;
      for (let i = 0; i < 100 && !applied; i++) {
        applied = await can(other, free);
        if (!applied) await new Promise((res) => setTimeout(res, 100));
      }
      // With one batch at a time, the second would wait behind the first until the held lease expired.
      expect([applied, await can(waiter, held)]).toEqual([true, false]);
    } finally {
      await redis.del(lease);
    }
    await waitIdle(p.http, 60_000);
    expect(await can(waiter, held)).toBe(true);
  } finally {
    redis.disconnect();
  }
}, 120_000);
