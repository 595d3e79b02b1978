// A definition change is in force in every process when its call returns, while its re-index is held back: checks and lists follow the new model at once.
import type { Peer } from '../support/peer.js';
import { holdIndexLeases } from '../support/index-leases.js';
import { startService, type TestService } from '../support/service.js';

let a: TestService;
let b: TestService;
/** Reads the pending re-indexes as a third process would. */
let peer: Peer;
let giveBack: (() => Promise<void>) | null = null;

beforeAll(async () => {
  a = await startService({ ROUTER_RATE_LIMITS: JSON.stringify({ enabled: false }) });
  b = await startService({ ROUTER_RATE_LIMITS: JSON.stringify({ enabled: false }) }, { wipe: false });
  peer = await a.peer();
}, 60_000);
afterAll(async () => {
  await giveBack?.();
  await peer?.close();
  await b?.stop();
  await a?.stop();
});

const ok = async (svc: TestService, method: string, path: string, body?: unknown) => {
  const res = await svc.http(method, path, body === undefined ? {} : { body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
};
const can = async (svc: TestService, subject: string, permission: string, resource: string, extra = '') =>
  (await ok(svc, 'GET', `/authorization/permissions/can?${new URLSearchParams({ subject, permission, resource })}${extra}`)).allowed as boolean;
const objects = async (svc: TestService, subject: string, permission: string, resourceType: string) =>
  (await ok(svc, 'GET', `/authorization/permissions/objects?${new URLSearchParams({ subject, permission, resourceType, limit: '100' })}`)).objects as string[];
const subjects = async (svc: TestService, permission: string, resource: string) =>
  (await ok(svc, 'GET', `/authorization/permissions/subjects?${new URLSearchParams({ permission, resource, subjectType: 'User', limit: '100' })}`)).subjects as string[];

/** Every answer the new definition gives, asked of one process. */
async function newAnswers(svc: TestService, extra = '') {
  return {
    editorViews: await can(svc, 'User:e', 'view', 'Doc:x', extra),
    folderViewerViews: await can(svc, 'User:fv', 'view', 'Doc:x', extra),
    oldViewerViews: await can(svc, 'User:v', 'view', 'Doc:x', extra),
    bulkViews: await can(svc, 'User:bulk', 'view', 'Doc:d7', extra),
    outsiderViews: await can(svc, 'User:nobody', 'view', 'Doc:x', extra),
    editorObjects: await objects(svc, 'User:e', 'view', 'Doc'),
    folderViewerObjects: await objects(svc, 'User:fv', 'view', 'Doc'),
    viewers: await subjects(svc, 'view', 'Doc:x'),
  };
}
const expected = {
  editorViews: true,
  folderViewerViews: true,
  oldViewerViews: false,
  bulkViews: false,
  outsiderViews: false,
  editorObjects: ['Doc:x'],
  folderViewerObjects: ['Doc:x'],
  viewers: ['User:e', 'User:fv'],
};

it('checks and lists follow a redefinition before its re-index runs, in the process that made it and in another', async () => {
  await ok(a, 'POST', '/authorization/resources', { name: 'Folder', relations: { viewer: ['User'] }, permissions: { view: ['viewer'] } });
  await ok(a, 'POST', '/authorization/resources', {
    name: 'Doc',
    relations: { viewer: ['User'], editor: ['User'], parent: ['Folder'] },
    permissions: { view: ['viewer'] },
  });
  let latest = (await ok(a, 'POST', '/authorization/relations/many', { subject: 'User:bulk', relation: 'viewer', resources: Array.from({ length: 500 }, (_, i) => `Doc:d${i}`) }))
    .revision as number;
  for (const t of ['User:v#viewer@Doc:x', 'User:e#editor@Doc:x', 'Folder:f#parent@Doc:x', 'User:fv#viewer@Folder:f']) {
    const [sr, resource] = t.split('@') as [string, string];
    const [subject, relation] = sr.split('#') as [string, string];
    latest = Math.max(latest, (await ok(a, 'POST', '/authorization/relations', { subject, relation, resource })).revision as number);
  }
  // Everything indexed under the first definition.
  expect(await can(a, 'User:bulk', 'view', 'Doc:d7', `&consistency=at_least_as_fresh&revision=${latest}`)).toBe(true);
  expect(await can(a, 'User:e', 'view', 'Doc:x')).toBe(false);
  expect(await can(b, 'User:fv', 'view', 'Doc:x')).toBe(false);

  // The structure lease taken away from every process: no re-index can run until it is given back (plain writes can).
  giveBack = await holdIndexLeases(a, 'structure');
  const started = Date.now();
  const redefined = await ok(a, 'PATCH', '/authorization/resources/Doc', {
    relations: { viewer: ['User'], editor: ['User'], parent: ['Folder'] },
    permissions: { view: ['editor', 'parent->view'] },
    version: 1,
  });
  expect(redefined.status).toBe('processed');
  expect(Date.now() - started).toBeLessThan(10_000); // answered without the lease
  expect((await peer.reindexState.all()).length).toBe(1);

  // At once, with no consistency asked, in both processes; and a read at the change's revision does not wait for the re-index.
  expect(await newAnswers(a)).toEqual(expected);
  expect(await newAnswers(b)).toEqual(expected);
  expect(await can(b, 'User:e', 'view', 'Doc:x', `&consistency=at_least_as_fresh&revision=${redefined.revision}`)).toBe(true);
  // Under a stream of writes through both processes, each answer follows the new model as soon as the write returns.
  await Promise.all([a, b].map(async (svc, w) => {
    for (let i = 0; i < 15; i++) {
      await ok(svc, 'POST', '/authorization/relations', { subject: `User:s${w}-${i}`, relation: 'editor', resource: `Doc:n${w}-${i}` });
      await ok(svc, 'POST', '/authorization/relations', { subject: `User:t${w}-${i}`, relation: 'viewer', resource: `Doc:n${w}-${i}` });
      const other = [a, b][1 - w]!;
      expect([i, await can(other, `User:s${w}-${i}`, 'view', `Doc:n${w}-${i}`)]).toEqual([i, true]);
      expect([i, await can(svc, `User:t${w}-${i}`, 'view', `Doc:n${w}-${i}`)]).toEqual([i, false]);
    }
  }));
  // The index's records follow the model in force before the re-index: an object's own keys are the definition's,
  // read at query time (only flats are precomputed).
  const evaluated = await ok(a, 'GET', `/authorization/permissions/evaluate?${new URLSearchParams({ subject: 'User:bulk', permission: 'view', resource: 'Doc:d7' })}`);
  expect(evaluated.allowed).toBe(false);
  expect(JSON.stringify(evaluated.objectIndex)).not.toContain('Doc:d7#viewer');
  expect(JSON.stringify(evaluated.objectIndex)).toContain('Doc:d7#editor');

  // The leases given back: the re-index runs, ends, and the index answers the same.
  await giveBack();
  giveBack = null;
  const deadline = Date.now() + 60_000;
  while (((await peer.reindexState.all()).length) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  expect((await peer.reindexState.all()).length).toBe(0);
  expect(await newAnswers(a)).toEqual(expected);
  expect(await newAnswers(b)).toEqual(expected);
  const after = await ok(a, 'GET', `/authorization/permissions/evaluate?${new URLSearchParams({ subject: 'User:bulk', permission: 'view', resource: 'Doc:d7' })}`);
  expect(JSON.stringify(after.objectIndex)).not.toContain('Doc:d7#viewer');
}, 120_000);
