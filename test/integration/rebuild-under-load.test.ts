// A hard rebuild while writes stream in and checks loop (no answer wrong before, during or after the switch), and a
// rebuild killed with SIGKILL half-way (the old generation answers at the next start while the rebuild runs again).
import { Evaluator } from '../../src/engine/evaluator.js';
import { childService, type ChildService } from '../support/child-service.js';
import { disagreements, readMongo, waitIdle } from '../support/converge.js';
import { wipe } from '../support/service.js';

const folderDef = {
  name: 'Folder',
  relations: { parent: ['Folder'], viewer: ['User', 'Team'] },
  permissions: { view: ['viewer', 'viewer->read', 'parent->view'] },
};
/** The seeded folders g0..g399: g(i) is the parent of g(i+1) within chains of 8; USERS users view 50 of them each. */
const SEEDED = 400;
/** Users who view 50 seeded folders each: 5,000 tuples, so that a rebuild takes long enough to be watched. */
const USERS = 100;

let svc: ChildService;
/** Checks whose answers the streams never change: seeded subjects on seeded folders, with the evaluator's answers. */
let probes: Array<[string, string, boolean]> = [];

/** How long each check took, by phase: printed, never asserted (a check waits for the index behind the rebuild's batches). */
const took: Record<string, number[]> = { before: [], during: [], after: [] };
const can = async (subject: string, resource: string) => {
  const started = Date.now();
  try {
    return await ask(subject, resource);
  } finally {
    took[phase]!.push(Date.now() - started);
  }
};
const ask = async (subject: string, resource: string) => {
  const q = new URLSearchParams({ subject, permission: 'view', resource, consistency: 'fully_consistent' });
  const r = await svc.http('GET', `/authorization/permissions/can?${q}`);
  return r.status === 200 ? (r.body.allowed as boolean) : `status ${r.status} ${r.body?.code ?? ''}: ${r.body?.message ?? ''}`;
};
const status = async () => (await svc.http('GET', '/authorization/indexer/status')).body;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Where the rebuild is, as its watcher last saw it: the check loop counts its answers by phase. */
let phase: 'before' | 'during' | 'after' = 'before';

/** Loops over the probes until `until` settles; every answer that differs from the evaluator's is returned. */
async function checkLoop(until: Promise<unknown>): Promise<{ wrong: string[]; total: number; byPhase: Record<string, number> }> {
  let done = false;
  void until.finally(() => {
    done = true;
  });
  const wrong: string[] = [];
  const byPhase: Record<string, number> = { before: 0, during: 0, after: 0 };
  while (!done) {
    for (const [s, o, want] of probes) {
      const at = phase;
      const got = await can(s, o);
      byPhase[at]!++;
      if (got !== want) wrong.push(`can(${s}, view, ${o}) ${at} the rebuild: want ${want}, got ${got}`);
      if (done) break;
    }
  }
  await until;
  return { wrong, total: Object.values(byPhase).reduce((a, b) => a + b, 0), byPhase };
}

beforeAll(async () => {
  await wipe({ MONGO_URL: process.env.MONGO_URL!, NEO4J_URI: process.env.NEO4J_URI!, REDIS_URL: process.env.REDIS_URL! });
  // The test asks for the right answers, not for how soon the index has them: on CI's two loaded cores a fully
  // consistent check waited more than the default 5 s behind a rebuild batch and the streamed writes' units
  // (503 INDEX_BEHIND; reproduced with two busy loops beside the test). An INDEX_BEHIND within 30 s still fails it.
  svc = await childService({ FRESHNESS_WAIT_MS: '30000' });
  await svc.start();
  expect((await svc.http('POST', '/authorization/resources', folderDef)).status).toBe(200);
  const updates = [];
  for (let i = 0; i < SEEDED; i++) if (i % 8 !== 7) updates.push({ operation: 'create', subject: `Folder:g${i}`, relation: 'parent', resource: `Folder:g${i + 1}` });
  for (let u = 0; u < USERS; u++) {
    for (let j = 0; j < 50; j++) updates.push({ operation: 'create', subject: `User:u${u}`, relation: 'viewer', resource: `Folder:g${(u * 37 + j * 3) % SEEDED}` });
  }
  for (let u = 0; u < 40; u++) updates.push({ operation: 'create', subject: `User:m${u}`, relation: 'member', resource: `Team:t${u % 4}` });
  for (let t = 0; t < 4; t++) updates.push({ operation: 'create', subject: `Team:t${t}`, relation: 'viewer', resource: `Folder:g${t * 8 + 7}` });
  for (let at = 0; at < updates.length; at += 500) {
    expect((await svc.http('POST', '/authorization/relations/write', { updates: updates.slice(at, at + 500) })).status).toBe(200);
  }
  await waitIdle(svc.http, 120_000);
  const state = await readMongo(process.env.MONGO_URL!);
  const ev = new Evaluator(state.model, state.tuples, state.grants);
  const subjects = ['User:u0', 'User:u7', 'User:u23', 'User:m1', 'User:m6', 'Team:t2', 'User:nobody'];
  const folders = Array.from({ length: SEEDED }, (_, i) => `Folder:g${i}`);
  // Six folders each subject may view and six it may not, spread over the seeded ones.
  probes = subjects.flatMap((s) =>
    [true, false].flatMap((want) =>
      folders.filter((o, i) => i % 7 === 3 && ev.can(s, 'view', o) === want).slice(0, 6)
        .map((o): [string, string, boolean] => [s, o, want])
    )
  );
  expect(probes.filter((p) => p[2]).length).toBeGreaterThan(10);
  expect(probes.filter((p) => !p[2]).length).toBeGreaterThan(10);
}, 240_000);
afterAll(async () => {
  await svc?.kill('SIGTERM');
});

describe('a hard rebuild under a write stream and a check loop', () => {
  it('answers every probe and every streamed write correctly before, during and after the switch', async () => {
    const before = (await status()).generation as number;
    phase = 'before';
    let stop = false;
    const streamWrong: string[] = [];
    let streamed = 0;
    // Each write makes a new folder, with a new viewer, the parent of a seeded folder: the seeded folder's flat (one per
    // generation) changes, so a write that reached only the live generation would be lost at the switch. The viewer is
    // asked at once, fully consistent. Each link lives for LINKS more writes, then is deleted and asked again: deletes of
    // links the rebuild has already read land in every part of it, up to the switch.
    const LINKS = 12;
    const unlinked: Array<[string, string]> = [];
    const stream = async (w: number) => {
      const live: Array<[string, string, { subject: string; relation: string; resource: string }]> = [];
      for (let i = 0; !stop; i++) {
        const [folder, viewer, seeded] = [`Folder:s${w}x${i}`, `User:v${w}x${i}`, `Folder:g${(w * 101 + i * 13) % SEEDED}`];
        const link = { subject: folder, relation: 'parent', resource: seeded };
        const res = await svc.http('POST', '/authorization/relations/write', {
          updates: [{ operation: 'create', subject: viewer, relation: 'viewer', resource: folder }, { operation: 'create', ...link }],
        });
        if (res.status !== 200) {
          streamWrong.push(`write ${folder}: ${res.status}`);
          continue;
        }
        streamed++;
        live.push([viewer, seeded, link]);
        if ((await can(viewer, seeded)) !== true) streamWrong.push(`can(${viewer}, view, ${seeded}) after ${folder} became its parent`);
        if (live.length <= LINKS) continue;
        const [oldViewer, oldSeeded, oldLink] = live.shift()!;
        if ((await svc.http('POST', '/authorization/relations/write', { updates: [{ operation: 'delete', ...oldLink }] })).status !== 200) {
          streamWrong.push(`delete ${oldLink.subject}`);
        } else {
          unlinked.push([oldViewer, oldSeeded]);
          if ((await can(oldViewer, oldSeeded)) !== false) streamWrong.push(`can(${oldViewer}, view, ${oldSeeded}) after ${oldLink.subject} was unlinked`);
        }
      }
    };
    const streams = [0, 1].map(stream);
    const rebuild = (async () => {
      while (streamed < 2 * LINKS + 6) await sleep(20); // both streams have links the rebuild will read
      expect((await svc.http('POST', '/authorization/indexer/reconstruct', {})).status).toBe(200);
      for (let i = 0; i < 6000; i++) {
        const s = await status();
        if (s.rebuild !== null) phase = 'during';
        if (s.generation > before && s.building === null && s.rebuild === null && s.rebuildRequested === null) break;
        await sleep(20);
      }
      const seen = phase === 'during';
      phase = 'after';
      expect(seen).toBe(true);
      const after = streamed;
      while (streamed < after + 10) await sleep(20); // writes go on after the switch too
    })();
    const { wrong, byPhase } = await checkLoop(rebuild);
    stop = true;
    await Promise.all(streams);
    const spread = (ms: number[]) => {
      const sorted = [...ms].sort((x, y) => x - y);
      return `${sorted.length} checks, p50 ${sorted[sorted.length >> 1]} ms, max ${sorted[sorted.length - 1]} ms`;
    };
    console.log(`fully consistent checks beside the write streams: ${Object.entries(took).map(([k, v]) => `${k} the rebuild ${spread(v)}`).join('; ')}`);
    expect(wrong.slice(0, 10)).toEqual([]);
    expect(streamWrong.slice(0, 10)).toEqual([]);
    expect(byPhase.during).toBeGreaterThan(0);
    expect(byPhase.after).toBeGreaterThan(0);
    expect(streamed).toBeGreaterThan(20);
    const s = await status();
    expect([s.generation, s.building]).toEqual([before + 1, null]);
    await waitIdle(svc.http, 60_000);
    const state = await readMongo(process.env.MONGO_URL!);
    const links = state.tuples.filter((t) => t.subject.startsWith('Folder:s') && t.relation === 'parent');
    expect([links.length > 5, unlinked.length > 5]).toEqual([true, true]);
    // Every unlinked viewer (the last ones were deleted nearest the switch) and a few linked ones, on their seeded folders.
    const viewerOf = (folder: string) => state.tuples.find((t) => t.resource === folder && t.relation === 'viewer')!.subject;
    const asked = [...unlinked.slice(-40), ...links.slice(0, 8).map((t): [string, string] => [viewerOf(t.subject), t.resource])];
    const problems = await disagreements(svc.http, state, {
      subjects: [...new Set(asked.map((a) => a[0]))],
      resources: [...new Set(asked.map((a) => a[1]))],
      types: [],
    });
    expect(problems.slice(0, 10)).toEqual([]);
  }, 300_000);
});

describe('SIGKILL in the middle of a hard rebuild', () => {
  it('the old generation answers at the next start while the rebuild runs again, and then switches', async () => {
    await waitIdle(svc.http, 60_000);
    const before = (await status()).generation as number;
    expect((await svc.http('POST', '/authorization/indexer/reconstruct', {})).status).toBe(200);
    let running = false;
    for (let i = 0; i < 400 && !running; i++) {
      const s = await status();
      running = s.rebuild !== null && s.rebuild.done > 0;
      if (!running) await sleep(10);
    }
    expect(running).toBe(true);
    await svc.kill('SIGKILL');
    await svc.start();
    const s = await status();
    // Either it is being built again or it finished while the checks below were being asked.
    expect(s.generation === before || s.generation === before + 1).toBe(true);
    const { wrong, total } = await checkLoop(waitIdle(svc.http, 120_000));
    expect(wrong.slice(0, 10)).toEqual([]);
    expect(total).toBeGreaterThan(0);
    const after = await status();
    expect([after.generation > before, after.building]).toEqual([true, null]);
    const state = await readMongo(process.env.MONGO_URL!);
    expect(await disagreements(svc.http, state, { subjects: ['User:u0', 'User:u23', 'User:m6', 'Team:t1'], resources: probes.slice(0, 12).map((p) => p[1]), types: ['Folder'] }))
      .toEqual([]);
  }, 300_000);
});
