// State import guards (issue 19): an NDJSON upload holding what MongoDB cannot store is refused whole, with its line,
// before anything is written; a prune removes only what the document would have carried, never dormant tuples.
import { startService, type TestService } from '../support/service.js';

const NDJSON = 'application/x-ndjson';
let svc: TestService;
beforeAll(async () => {
  svc = await startService();
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

const ndjsonImport = (text: string, query = '') => svc.http('POST', `/state/import${query}`, { raw: text, headers: { ...svc.asAdmin, 'content-type': NDJSON } });
const exported = async (query: string) => {
  const r = await svc.http('GET', `/state/export${query}`);
  expect(r.status).toBe(200);
  return r;
};
/** What an import could have changed: definitions, schemas, config and every tuple and grant. */
const everything = async () => {
  const { exportedAt: _e, revision: _r, ...rest } = (await exported('?tuples=true')).body;
  return rest;
};

describe('an NDJSON import with input MongoDB cannot store', () => {
  const header = (extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      version: 1,
      carries: ['relations', 'grants'],
      resources: [{ name: 'Crate', relations: { holder: ['User'] }, permissions: { open: ['holder'] } }],
      schemas: [{ name: 'Label', fields: { text: 'String' } }],
      config: { router: { rateLimits: { default: { windowMs: 1000, max: 50 } } } },
      ...extra,
    });
  const lines = (...l: unknown[]) => `${l.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join('\n')}\n`;

  it('refuses a NUL in an id with 400 VALIDATION_FAILED naming the line, and writes nothing (not the header either)', async () => {
    const before = await everything();
    const body = lines(header(), { subject: 'User:a', relation: 'holder', resource: 'Crate:1' }, { subject: 'User:b\u0000x', relation: 'holder', resource: 'Crate:2' }, {
      end: { relations: 2, grants: 0 },
    });
    for (const query of ['?dryRun=true', '', '?prune=true']) {
      const r = await ndjsonImport(body, query);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('VALIDATION_FAILED');
      expect(r.body.details).toEqual([expect.objectContaining({ line: 3 })]);
      expect(r.body.details[0].message).toMatch(/NUL/);
    }
    expect(await everything()).toEqual(before);
    expect((await svc.http('GET', '/authorization/resources/Crate')).status).toBe(404);
  });

  it('refuses unstorable keys and values in the header (line 1) and in a grant line, and writes nothing', async () => {
    const before = await everything();
    const dollarKey = await ndjsonImport(
      lines(header({ config: { router: { rateLimits: { routes: { $where: { windowMs: 1000, max: 1 } } } } } }), { end: { relations: 0, grants: 0 } }),
    );
    expect(dollarKey.status).toBe(400);
    expect(dollarKey.body.details).toEqual([expect.objectContaining({ line: 1 })]);
    const nulGrant = await ndjsonImport(lines(header(), { subject: 'User:a', permission: 'open', resource: 'Crate:1\u0000' }, { end: { relations: 0, grants: 1 } }));
    expect(nulGrant.status).toBe(400);
    expect(nulGrant.body.details).toEqual([expect.objectContaining({ line: 2 })]);
    expect(await everything()).toEqual(before);
  });

  it('takes the same upload once the bad line is fixed', async () => {
    const r = await ndjsonImport(
      lines(header(), { subject: 'User:a', relation: 'holder', resource: 'Crate:1' }, { subject: 'User:b', relation: 'holder', resource: 'Crate:2' }, {
        end: { relations: 2, grants: 0 },
      }),
    );
    expect(r.status).toBe(200);
    expect(r.body.relations).toEqual({ created: 2, existing: 0, removed: 0 });
  });
});

describe('a prune with tuples a narrowed definition no longer allows', () => {
  const can = async (subject: string, permission: string) =>
    (await svc.http('GET', `/authorization/permissions/can?subject=${subject}&permission=${permission}&resource=Folder:f1&consistency=fully_consistent`)).body.allowed;

  beforeAll(async () => {
    const wide = { name: 'Folder', relations: { owner: ['User'], viewer: ['User'] }, permissions: { read: ['viewer', 'owner'], peek: ['viewer'] } };
    expect((await svc.http('POST', '/authorization/resources', { body: wide })).status).toBe(200);
    expect((await svc.http('POST', '/authorization/relations', { body: { subject: 'User:u1', relation: 'viewer', resource: 'Folder:f1' } })).status).toBe(201);
    expect((await svc.http('POST', '/authorization/relations', { body: { subject: 'User:u3', relation: 'owner', resource: 'Folder:f1' } })).status).toBe(201);
    expect((await svc.http('POST', '/authorization/permissions/grant', { body: { subject: 'User:u2', permission: 'peek', resource: 'Folder:f1' } })).status).toBe(201);
    // Narrowed: viewer and peek go, so u1's tuple and u2's grant stay stored but are no longer exported.
    const narrow = await svc.http('PATCH', '/authorization/resources/Folder', { body: { relations: { owner: ['User'] }, permissions: { read: ['owner'] } } });
    expect(narrow.status).toBe(200);
  });

  it.each([['JSON', '?tuples=true'], ['NDJSON', '?tuples=true&format=ndjson']])('importing an unchanged %s export with prune removes nothing, dry run or not',
    async (_form, query) => {
      const doc = await exported(query);
      const post = (q: string) => (query.includes('ndjson') ? ndjsonImport(doc.text, q) : svc.http('POST', `/state/import${q}`, { body: doc.body }));
      for (const q of ['?prune=true&dryRun=true', '?prune=true']) {
        const r = await post(q);
        expect(r.status).toBe(200);
        expect(r.body.relations.removed).toBe(0);
        expect(r.body.grants.removed).toBe(0);
        expect(r.body.resources.removed).toEqual([]);
      }
    });

  it('widening the definition again restores the access the narrowing suspended', async () => {
    const wide = await svc.http('PATCH', '/authorization/resources/Folder', {
      body: { relations: { owner: ['User'], viewer: ['User'] }, permissions: { read: ['viewer', 'owner'], peek: ['viewer'] } },
    });
    expect(wide.status).toBe(200);
    expect(await can('User:u1', 'read')).toBe(true);
    expect(await can('User:u2', 'peek')).toBe(true);
    expect(await can('User:u3', 'read')).toBe(true);
  });

  it('still prunes what the document would have carried and lacks', async () => {
    const doc = (await exported('?tuples=true')).body;
    const withoutU1 = { ...doc, relations: doc.relations.filter((t: { subject: string }) => t.subject !== 'User:u1') };
    const r = await svc.http('POST', '/state/import?prune=true', { body: withoutU1 });
    expect(r.status).toBe(200);
    expect(r.body.relations.removed).toBe(1);
    expect(await can('User:u1', 'read')).toBe(false);
    expect(await can('User:u3', 'read')).toBe(true);
  });
});
