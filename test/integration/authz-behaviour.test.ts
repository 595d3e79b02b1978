// Writes, revisions, evaluate, list routes, the decision cache and index rebuilds, against the real servers.
import { holdIndexLeases } from '../support/index-leases.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
const folder = { name: 'Folder', relations: { parent: ['Folder'], viewer: ['User', 'Team'] }, permissions: { view: ['viewer', 'viewer->read', 'parent->view'] } };
const can = async (s: string, p: string, o: string, extra = '') =>
  (await svc.http('GET', `/authorization/permissions/can?subject=${s}&permission=${p}&resource=${o}${extra}`)).body.allowed as boolean;
const write = async (subject: string, relation: string, resource: string) => {
  const r = await svc.http('POST', '/authorization/relations', { body: { subject, relation, resource } });
  expect(r.status).toBe(201);
  return r.body as { _id: string; revision: number };
};

beforeAll(async () => {
  // Its reads that must wait out the index give up after 1.5 s (FRESHNESS_WAIT_MS), not the default 5 s.
  svc = await startService({ FRESHNESS_WAIT_MS: '1500' });
  await svc.http('POST', '/authorization/resources', { body: folder });
  await write('Folder:root', 'parent', 'Folder:mid');
  await write('Folder:mid', 'parent', 'Folder:leaf');
  await write('Team:t', 'viewer', 'Folder:root');
  await write('User:m', 'member', 'Team:t');
});
afterAll(async () => {
  await svc?.stop();
});

describe('writes and revisions', () => {
  it('a write returns its record and revision (body and X-Authz-Revision); a repeat is idempotent', async () => {
    const first = await svc.http('POST', '/authorization/relations', { body: { subject: 'User:x', relation: 'viewer', resource: 'Folder:leaf' } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ subject: 'User:x', relation: 'viewer', resource: 'Folder:leaf', computedTuple: 'User:x#viewer@Folder:leaf', subjectType: 'User',
      subjectId: 'x', resourceType: 'Folder', resourceId: 'leaf', revision: expect.any(Number) });
    expect(first.headers.get('x-authz-revision')).toBe(String(first.body.revision));
    const again = await svc.http('POST', '/authorization/relations', { body: { subject: 'User:x', relation: 'viewer', resource: 'Folder:leaf' } });
    expect(again.status).toBe(200);
    expect(again.body._id).toBe(first.body._id);
    const listed = await svc.http('GET', '/authorization/relations?search=user:x%23viewer');
    expect(listed.body.count).toBe(1);
    const del = await svc.http('DELETE', `/authorization/relations/${first.body._id}`);
    expect(del.body.deleted.computedTuple).toBe('User:x#viewer@Folder:leaf');
    expect(del.body.revision).toBeGreaterThan(first.body.revision);
  });

  it('lists and filters tuples with a total count', async () => {
    const r = await svc.http('GET', '/authorization/relations?resourceType=Folder&limit=2&sort=computedTuple');
    expect(r.body.count).toBe(3);
    expect(r.body.relations).toHaveLength(2);
    expect(r.body.relations[0].computedTuple < r.body.relations[1].computedTuple).toBe(true);
  });

  it('/relations/many writes all, indexes by jobs, and at_least_as_fresh waits for them', async () => {
    await svc.http('POST', '/authorization/relations', { body: { subject: 'Team:t', relation: 'viewer', resource: 'Folder:f0' } });
    const r = await svc.http('POST', '/authorization/relations/many', { body: { subject: 'User:bulk', relation: 'viewer', resources: ['Folder:f0', 'Folder:f1', 'Folder:f2'] } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ created: 3, existing: 0, revision: expect.any(Number) });
    expect(await can('User:bulk', 'view', 'Folder:f2', `&consistency=at_least_as_fresh&revision=${r.body.revision}`)).toBe(true);
    const again = await svc.http('POST', '/authorization/relations/many', { body: { subject: 'User:bulk', relation: 'viewer', resources: ['Folder:f0', 'Folder:f3'] } });
    expect(again.body).toMatchObject({ created: 1, existing: 1 });
    const status = await svc.http('GET', '/authorization/indexer/status');
    expect(status.body).toMatchObject({ appliedRevision: expect.any(Number), revision: expect.any(Number) });
  });

  it('a revision never issued is a 400 at once; one the index has not applied is 503 INDEX_BEHIND after the bounded wait', async () => {
    const never = await svc.http('GET', '/authorization/permissions/can?subject=User:m&permission=view&resource=Folder:leaf&consistency=at_least_as_fresh&revision=999999');
    expect([never.status, never.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    const release = await holdIndexLeases(svc);
    try {
      const w = await svc.http('POST', '/authorization/relations/many', { body: { subject: 'User:held', relation: 'viewer', resources: ['Folder:held'] } });
      expect(w.status).toBe(200);
      const r = await svc.http('GET',
        `/authorization/permissions/can?subject=User:m&permission=view&resource=Folder:leaf&consistency=at_least_as_fresh&revision=${w.body.revision}`);
      expect([r.status, r.body.code]).toEqual([503, 'INDEX_BEHIND']);
    } finally {
      await release();
    }
  }, 20000);
});

describe('decisions', () => {
  it('many checks at once (grouped into shared index queries) each get their own answer', async () => {
    const probes: Array<[string, string, boolean]> = [
      ['User:m', 'Folder:leaf', true],
      ['User:m', 'Folder:root', true],
      ['User:zz', 'Folder:leaf', false],
      ['Team:t', 'Folder:mid', true],
      ['User:m', 'Folder:nowhere', false],
      ['Folder:root', 'Folder:leaf', false],
    ];
    const asked = Array.from({ length: 240 }, (_, i) => probes[(i * 7) % probes.length]!);
    // fully_consistent skips the decision cache, so every one of them reaches the index.
    const answers = await Promise.all(asked.map(([s, o]) => can(s, 'view', o, '&consistency=fully_consistent')));
    expect(answers).toEqual(asked.map(([, , expected]) => expected));
  });

  it('inherits through nested folders and a team; a delete never leaves a stale allow, even when cached', async () => {
    expect(await can('User:m', 'view', 'Folder:leaf')).toBe(true);
    expect(await can('User:m', 'view', 'Folder:leaf')).toBe(true); // now cached
    const list = await svc.http('GET', '/authorization/relations?search=Folder:mid%23parent@Folder:leaf');
    const id = list.body.relations[0]._id;
    await svc.http('DELETE', `/authorization/relations/${id}`);
    expect(await can('User:m', 'view', 'Folder:leaf')).toBe(false);
    expect(await can('User:m', 'view', 'Folder:mid')).toBe(true);
    await write('Folder:mid', 'parent', 'Folder:leaf');
    expect(await can('User:m', 'view', 'Folder:leaf')).toBe(true);
  });

  it('evaluate gives a real chain of stored tuples and the raw index records', async () => {
    const r = await svc.http('GET', '/authorization/permissions/evaluate?subject=User:m&permission=view&resource=Folder:leaf');
    expect(r.body.allowed).toBe(true);
    expect(r.body.paths).toEqual(['User:m#member@Team:t', 'Team:t#viewer@Folder:root', 'Folder:root#parent@Folder:mid', 'Folder:mid#parent@Folder:leaf']);
    expect(r.body.subjectIndex.keys).toContain('Team:t#member');
    expect(r.body.objectIndex.refs.map((f: { id: string }) => f.id)).toContain('Folder:mid#view');
  });

  it('evaluate marks self-access and direct grants as assigned', async () => {
    const self = await svc.http('GET', '/authorization/permissions/evaluate?subject=Folder:leaf&permission=view&resource=Folder:leaf');
    expect(self.body).toMatchObject({ allowed: true, assigned: true });
    await svc.http('POST', '/authorization/permissions/grant', { body: { subject: 'User:g', permission: 'view', resource: 'Folder:leaf' } });
    const granted = await svc.http('GET', '/authorization/permissions/evaluate?subject=User:g&permission=view&resource=Folder:leaf');
    expect(granted.body).toMatchObject({ allowed: true, assigned: true });
    await svc.http('DELETE', '/authorization/permissions/grant', { body: { subject: 'User:g', permission: 'view', resource: 'Folder:leaf' } });
    expect(await can('User:g', 'view', 'Folder:leaf')).toBe(false);
  });

  it('scope: without a direct tuple on the scope the answer is false; with one, the scope is evaluated', async () => {
    expect(await can('User:nobody', 'view', 'Folder:leaf', '&scope=Team:t')).toBe(false);
    expect(await can('User:m', 'view', 'Folder:leaf', '&scope=Team:t')).toBe(true);
  });

  it('list objects and list subjects come from the index, paged with a total', async () => {
    const page1 = await svc.http('GET', '/authorization/permissions/objects?subject=User:m&permission=view&resourceType=Folder&limit=2');
    expect(page1.body.count).toBe(4);
    const page2 = await svc.http('GET', '/authorization/permissions/objects?subject=User:m&permission=view&resourceType=Folder&limit=2&skip=2');
    expect([...page1.body.objects, ...page2.body.objects].sort()).toEqual(['Folder:f0', 'Folder:leaf', 'Folder:mid', 'Folder:root']);
    const subjects = await svc.http('GET', '/authorization/permissions/subjects?permission=view&resource=Folder:leaf&subjectType=User');
    expect(subjects.body).toEqual({ subjects: ['User:m'], public: false, count: 1 });
  });

  it("a relation's lists read its tuples, of the subject types it admits", async () => {
    const holders = await svc.http('GET', '/authorization/permissions/subjects?permission=parent&resource=Folder:leaf&subjectType=Folder');
    expect(holders.body).toEqual({ subjects: ['Folder:leaf', 'Folder:mid'], public: false, count: 2 });
    const viewers = await svc.http('GET', '/authorization/permissions/subjects?permission=viewer&resource=Folder:root&subjectType=Team');
    expect(viewers.body).toEqual({ subjects: ['Team:t'], public: false, count: 1 });
    const held = await svc.http('GET', '/authorization/permissions/objects?subject=Folder:mid&permission=parent&resourceType=Folder');
    expect(held.body).toEqual({ objects: ['Folder:leaf', 'Folder:mid'], count: 2 });
  });
});

describe('reconstruct', () => {
  const probes: Array<[string, string, string, boolean]> = [
    ['User:m', 'view', 'Folder:leaf', true],
    ['User:m', 'view', 'Folder:mid', true],
    ['User:bulk', 'view', 'Folder:f1', true],
    ['User:bulk', 'view', 'Folder:leaf', false],
    ['Team:t', 'view', 'Folder:leaf', true],
    ['User:zz', 'view', 'Folder:root', false],
  ];
  async function checkerDuring(action: () => Promise<void>) {
    let wrong = 0;
    let total = 0;
    let stop = false;
    const loop = (async () => {
      while (!stop) {
        for (const [s, p, o, expected] of probes) {
          if ((await can(s, p, o, '&consistency=fully_consistent')) !== expected) wrong++;
          total++;
        }
      }
    })();
    await action();
    stop = true;
    await loop;
    return { wrong, total };
  }
  /** Rebuilds are not pending revisions (reads never wait on one): the status route tells when it is done. */
  const waitIdle = async () => {
    for (let i = 0; i < 600; i++) {
      const s = (await svc.http('GET', '/authorization/indexer/status')).body;
      if (s.rebuild === null && s.rebuildRequested === null) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the rebuild did not finish');
  };

  it('soft: reapplies every tuple while serving', async () => {
    const { wrong, total } = await checkerDuring(async () => {
      const r = await svc.http('POST', '/authorization/indexer/reconstruct', { body: { soft: true } });
      expect(r.body).toEqual({ result: 'ok', revision: expect.any(Number) });
      await waitIdle();
    });
    expect(total).toBeGreaterThan(0);
    expect(wrong).toBe(0);
  });

  it('hard: builds a new generation and switches; no wrong answer during the rebuild', async () => {
    const before = (await svc.http('GET', '/authorization/indexer/status')).body.generation;
    const { wrong, total } = await checkerDuring(async () => {
      await svc.http('POST', '/authorization/indexer/reconstruct', { body: {} });
      await waitIdle();
    });
    expect(total).toBeGreaterThan(0);
    expect(wrong).toBe(0);
    const status = (await svc.http('GET', '/authorization/indexer/status')).body;
    expect(status.generation).toBe(before + 1);
    expect(status.building).toBeNull();
    for (const [s, p, o, expected] of probes) expect(await can(s, p, o)).toBe(expected);
  });
});
