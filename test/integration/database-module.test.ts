// The database module: schemas (admin), documents with ownership and authorized listing (client). Introspection, which
// adopts collections written in MongoDB itself, is database-introspection.test.ts, on the stack.
import { waitIdle } from '../support/converge.js';
import { clientAccount, clientCall } from '../support/client-account.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
// Many accounts from one address: registration's default limit (20/min per IP) is raised here.
const LIMITS = JSON.stringify({ routes: { 'POST /authentication/local/new': { windowMs: 60_000, max: 1000 } } });
beforeAll(async () => {
  svc = await startService({ ROUTER_RATE_LIMITS: LIMITS });
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

const client = (method: string, path: string, token?: string, body?: unknown) => clientCall(svc, method, path, token, body);

const account = (email: string) => clientAccount(svc, email);

const ids = (r: { body: { documents: Array<{ _id: string }> } }) => r.body.documents.map((d) => d._id).sort();

describe('schemas (admin)', () => {
  it('creates authorization-enabled schemas, which register their resource definition', async () => {
    const project = await svc.http('POST', '/database/schemas', { body: {
      name: 'Project',
      fields: { title: { type: 'String', required: true }, budget: 'Number', done: { type: 'Boolean', default: false } },
      serviceOptions: { authorization: { enabled: true } },
    } });
    expect(project.status).toBe(201);
    const note = await svc.http('POST', '/database/schemas', { body: {
      name: 'Note',
      fields: { text: 'String', project: { type: 'Relation', model: 'Project' }, code: { type: 'String', unique: true } },
      serviceOptions: { authorization: { enabled: true } },
    } });
    expect(note.status).toBe(201);
    const def = await svc.http('GET', '/authorization/resources/Project');
    expect(def.status).toBe(200);
    expect(Object.keys(def.body.relations).sort()).toEqual(['editor', 'owner', 'reader']);
    expect((await svc.http('GET', '/database/schemas')).body.count).toBe(2);
  });

  it('refuses bad schemas with 4xx and changes nothing', async () => {
    for (const body of [
      { name: 'Bad', fields: { x: 'Text' } },
      { name: 'Bad', fields: { r: { type: 'Relation', model: 'Missing' } } },
      { name: 'Bad', fields: { _id: 'String' } },
      { name: 'Team', fields: {} },
      { name: 'Bad', fields: {}, extra: 1 },
    ]) {
      const r = await svc.http('POST', '/database/schemas', { body });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    }
    expect((await svc.http('POST', '/database/schemas', { body: { name: 'Project', fields: {} } })).status).toBe(409);
    // A definition an operator wrote by hand is not taken over by a schema of the same name.
    await svc.http('POST', '/authorization/resources', { body: { name: 'Ledger', relations: { auditor: ['User'] }, permissions: { read: ['auditor'] } } });
    const taken = await svc.http('POST', '/database/schemas', { body: { name: 'Ledger', fields: {}, serviceOptions: { authorization: { enabled: true } } } });
    expect(taken.status).toBe(409);
    expect(Object.keys((await svc.http('GET', '/authorization/resources/Ledger')).body.relations)).toEqual(['auditor']);
    expect((await svc.http('GET', '/database/schemas')).body.count).toBe(2);
  });

  it("refuses a schema named like a module's type (File, StoragePublic, ChatRoom) on create and import, with 409 naming the module", async () => {
    for (const [name, module] of [['File', 'storage'], ['StoragePublic', 'storage'], ['ChatRoom', 'chat']]) {
      const created = await svc.http('POST', '/database/schemas', { body: { name, fields: { n: 'Number' }, serviceOptions: { authorization: { enabled: true } } } });
      expect([name, created.status, created.body.code, created.body.message]).toEqual([name, 409, 'ALREADY_EXISTS', expect.stringContaining(`${module} module`)]);
      const imported = await svc.http('POST', '/database/schemas/import', { body: { schemas: [{ name, fields: {} }] } });
      expect([name, imported.status, imported.body.message]).toEqual([name, 409, expect.stringContaining(`${module} module`)]);
    }
    expect((await svc.http('GET', '/database/schemas')).body.count).toBe(2);
    // The storage module's File is untouched.
    expect(Object.keys((await svc.http('GET', '/authorization/resources/File')).body.relations).sort()).toEqual(['editor', 'owner', 'reader']);
  });

  it('exports and re-imports idempotently', async () => {
    const exported = (await svc.http('GET', '/database/schemas/export')).body;
    expect(exported.schemas.map((s: { name: string }) => s.name)).toEqual(['Note', 'Project']);
    const again = await svc.http('POST', '/database/schemas/import', { body: exported });
    expect(again.body).toEqual({ created: [], updated: [], unchanged: ['Note', 'Project'] });
  });
});

let alice: { id: string; token: string };
let bob: { id: string; token: string };
let carol: { id: string; token: string };
let team: string;
let teamDoc: string;
let aliceDoc: string;
describe('documents (client): ownership, reads and refusals', () => {
  beforeAll(async () => {
    [alice, bob, carol] = await Promise.all([account('alice@db.example'), account('bob@db.example'), account('carol@db.example')]);
    team = (await client('POST', '/authentication/teams', alice.token, { name: 'Builders' })).body._id;
    const inv = await client('POST', `/authentication/teams/${team}/invite`, alice.token, { email: 'bob@db.example' });
    expect((await client('POST', '/authentication/teams/join', bob.token, { invitationToken: inv.body.invitationToken })).status).toBe(200);
  });

  it('owner on create: the caller, or only the scope team (which needs edit on it)', async () => {
    const own = await client('POST', '/database/Project', alice.token, { title: 'Mine', budget: 5 });
    expect(own.status).toBe(201);
    expect(own.body).toMatchObject({ title: 'Mine', budget: 5, done: false });
    aliceDoc = own.body._id;
    const scoped = await client('POST', `/database/Project?scope=Team:${team}`, alice.token, { title: 'Shared', budget: 7 });
    expect(scoped.status).toBe(201);
    teamDoc = scoped.body._id;
    const roles = await svc.http('GET', '/authorization/relations?resourceType=Project&limit=100');
    expect(roles.body.relations.map((r: { computedTuple: string }) => r.computedTuple).sort()).toEqual([
      `Team:${team}#owner@Project:${teamDoc}`,
      `User:${alice.id}#owner@Project:${aliceDoc}`,
    ].sort());
    // bob is a member, not an owner: members cannot edit the team, so they cannot create in its name.
    expect((await client('POST', `/database/Project?scope=Team:${team}`, bob.token, { title: 'Nope' })).status).toBe(403);
    expect((await client('POST', '/database/Project', alice.token, { budget: 1 })).status).toBe(400);
    expect((await client('POST', '/database/Project', alice.token, { title: 'x', owner: 'me' })).status).toBe(400);
    expect((await client('POST', '/database/Nothing', alice.token, { title: 'x' })).status).toBe(404);
  });

  it('each user sees what the index lets them read, and no more', async () => {
    expect(ids(await client('GET', '/database/Project', alice.token))).toEqual([aliceDoc, teamDoc].sort());
    expect(ids(await client('GET', '/database/Project', bob.token))).toEqual([teamDoc]);
    expect((await client('GET', '/database/Project', carol.token)).body).toEqual({ documents: [], count: 0 });
    expect(ids(await client('GET', `/database/Project?scope=Team:${team}`, bob.token))).toEqual([teamDoc]);
    expect((await client('GET', `/database/Project?scope=Team:${team}`, carol.token)).status).toBe(403);
    // Filters are schema fields; sorting by a field; anything else is a 400.
    expect(ids(await client('GET', '/database/Project?budget=7', alice.token))).toEqual([teamDoc]);
    expect((await client('GET', '/database/Project?sort=-budget', alice.token)).body.documents.map((d: { title: string }) => d.title)).toEqual(['Shared', 'Mine']);
    expect((await client('GET', '/database/Project?subject=User:x', alice.token)).status).toBe(400);
    expect((await client('GET', '/database/Project?sort=nope', alice.token)).status).toBe(400);
  });

  it('refuses documents the store cannot hold with a 400, leaving no document and no tuple', async () => {
    const before = (await svc.http('GET', '/authorization/relations?resourceType=Project&limit=1')).body.count;
    for (const body of [{ title: 'a\u0000b' }, { title: 'x', budget: 1, done: true, $where: 1 }]) {
      expect((await client('POST', '/database/Project', alice.token, body)).status).toBe(400);
    }
    const meta = await svc.http('POST', '/database/schemas', { body: { name: 'Blob', fields: { data: 'JSON' }, serviceOptions: { authorization: { enabled: true } } } });
    expect(meta.status).toBe(201);
    for (const data of [{ 'a.b': 1 }, { $set: 1 }, [[1, 2]]]) expect((await client('POST', '/database/Blob', alice.token, { data })).status).toBe(400);
    expect((await client('GET', '/database/Blob', alice.token)).body.count).toBe(0);
    expect((await svc.http('GET', '/authorization/relations?resourceType=Project&limit=1')).body.count).toBe(before);
  });
});

describe('documents (client): permissions, scopes and operators', () => {
  it('read is 404 when not readable, edit and delete 403 when readable but not permitted', async () => {
    expect((await client('GET', `/database/Project/${teamDoc}`, bob.token)).body.title).toBe('Shared');
    expect((await client('GET', `/database/Project/${aliceDoc}`, bob.token)).status).toBe(404);
    expect((await client('PATCH', `/database/Project/${teamDoc}`, bob.token, { title: 'Hacked' })).status).toBe(403);
    expect((await client('DELETE', `/database/Project/${teamDoc}`, bob.token)).status).toBe(403);
    expect((await client('PATCH', `/database/Project/${aliceDoc}`, carol.token, { title: 'Hacked' })).status).toBe(404);
    const ok = await client('PATCH', `/database/Project/${teamDoc}`, alice.token, { done: true });
    expect(ok.body).toMatchObject({ title: 'Shared', done: true });
  });

  it('an editAll holder on the team edits its documents; a plain member still cannot', async () => {
    const dan = await account('dan@db.example');
    const inv = await client('POST', `/authentication/teams/${team}/invite`, alice.token, { email: 'dan@db.example' });
    expect((await client('POST', '/authentication/teams/join', dan.token, { invitationToken: inv.body.invitationToken })).status).toBe(200);
    expect((await client('PATCH', `/database/Project/${teamDoc}`, dan.token, { budget: 8 })).status).toBe(403);
    expect((await svc.http('POST', '/authorization/relations', { body: { subject: `User:${dan.id}`, relation: 'editAll', resource: `Team:${team}` } })).status).toBe(201);
    const edited = await client('PATCH', `/database/Project/${teamDoc}`, dan.token, { budget: 8 });
    expect(edited.status).toBe(200);
    expect(edited.body.budget).toBe(8);
    expect((await client('PATCH', `/database/Project/${teamDoc}`, bob.token, { budget: 9 })).status).toBe(403);
    // editAll is not delete.
    expect((await client('DELETE', `/database/Project/${teamDoc}`, dan.token)).status).toBe(403);
  });

  it('creating for a scope needs a team: any other object is a 400', async () => {
    for (const scope of [`Project:${aliceDoc}`, `User:${alice.id}`]) {
      const r = await client('POST', `/database/Project?scope=${scope}`, alice.token, { title: 'x' });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('VALIDATION_FAILED');
    }
  });

  it('operators in bodies and queries of every client route are a 400 and change nothing', async () => {
    const relations = (await svc.http('GET', '/authorization/relations?limit=1')).body.count;
    const ne = { $ne: null };
    const bodies: Array<[string, string, unknown]> = [
      ['POST', '/authentication/local/new', { email: ne, password: 'correct horse' }],
      ['POST', '/authentication/local', { email: ne, password: ne }],
      ['POST', '/authentication/renew', { refreshToken: ne }],
      ['POST', '/authentication/teams', { name: ne }],
      ['POST', '/authentication/teams/join', { invitationToken: ne }],
      ['POST', `/authentication/teams/${team}/invite`, { email: ne }],
      ['POST', '/database/Project', { title: ne }],
      ['PATCH', `/database/Project/${aliceDoc}`, { title: ne }],
    ];
    for (const [method, path, body] of bodies) {
      const r = await client(method, path, alice.token, body);
      expect([method, path, r.status]).toEqual([method, path, 400]);
      expect(r.body.code).toBe('VALIDATION_FAILED');
    }
    for (const path of ['/database/Project?title[$ne]=x', '/database/Project?scope[$ne]=x', '/authorization/check?action=read&resource[$ne]=x', '/authentication/teams?skip[$gt]=0',
      `/database/Project/${aliceDoc}?populate[$ne]=x`]) {
      const r = await client('GET', path, alice.token);
      expect([path, r.status]).toEqual([path, 400]);
    }
    expect((await svc.http('GET', '/authorization/relations?limit=1')).body.count).toBe(relations);
    expect((await client('GET', `/database/Project/${aliceDoc}`, alice.token)).body.title).toBe('Mine');
  });
});

describe('documents (client): pages, populate and deletes', () => {
  it("never shows a user another user's documents, on any page", async () => {
    const [erin, fred] = await Promise.all([account('erin@db.example'), account('fred@db.example')]);
    // Interleaved creation, so each user's documents are spread over the id range of the other's.
    for (let i = 0; i < 24; i++) {
      const who = i % 3 === 0 ? erin : fred;
      expect((await client('POST', '/database/Note', who.token, { text: `${who === erin ? 'erin' : 'fred'} ${i}`, code: `page-${i}` })).status).toBe(201);
    }
    for (const [who, name, n] of [[erin, 'erin', 8], [fred, 'fred', 16]] as const) {
      const seen: string[] = [];
      for (let skip = 0; skip < 30; skip += 5) {
        const page = await client('GET', `/database/Note?skip=${skip}&limit=5`, who.token);
        expect(page.body.count).toBe(n);
        seen.push(...page.body.documents.map((d: { text: string }) => d.text));
      }
      expect(seen.length).toBe(n);
      expect(new Set(seen).size).toBe(n);
      expect(seen.every((t) => t.startsWith(`${name} `))).toBe(true);
    }
  });

  it('populate resolves only the references the caller may read', async () => {
    const n1 = await client('POST', `/database/Note?scope=Team:${team}`, alice.token, { text: 'on shared', project: teamDoc, code: 'n1' });
    const n2 = await client('POST', `/database/Note?scope=Team:${team}`, alice.token, { text: 'on private', project: aliceDoc, code: 'n2' });
    expect([n1.status, n2.status]).toEqual([201, 201]);
    expect((await client('POST', '/database/Note', alice.token, { text: 'dup', code: 'n1' })).status).toBe(409);
    const seen = await client('GET', '/database/Note?populate=project', bob.token);
    const byText = new Map(seen.body.documents.map((d: { text: string; project: unknown }) => [d.text, d.project]));
    expect(byText.get('on shared')).toMatchObject({ _id: teamDoc, title: 'Shared' });
    expect(byText.get('on private')).toBe(aliceDoc);
  });

  it('deleting a document deletes its tuples and grants, on it and from it', async () => {
    const doc = (await client('POST', '/database/Project', carol.token, { title: 'Short-lived' })).body._id;
    // A grant on the document, and a tuple whose subject is the document.
    expect((await svc.http('POST', '/authorization/resources', { body: { name: 'Binder', relations: { holds: ['Project'] }, permissions: {} } })).status).toBe(200);
    expect((await svc.http('POST', '/authorization/permissions/grant', { body: { subject: `User:${bob.id}`, permission: 'read', resource: `Project:${doc}` } })).status)
      .toBeLessThan(300);
    expect((await svc.http('POST', '/authorization/relations', { body: { subject: `Project:${doc}`, relation: 'holds', resource: 'Binder:b1' } })).status).toBe(201);
    expect((await client('GET', `/database/Project/${doc}`, bob.token)).status).toBe(200);
    expect((await client('DELETE', `/database/Project/${doc}`, carol.token)).body).toMatchObject({ tuples: 3 });
    expect((await svc.http('GET', `/authorization/relations?search=Project:${doc}`)).body.count).toBe(0);
    expect((await client('GET', `/database/Project/${doc}`, carol.token)).status).toBe(404);
    // A new object with the same id would inherit nothing.
    expect((await svc.http('GET', `/authorization/permissions/can?subject=User:${bob.id}&permission=read&resource=Project:${doc}`)).body.allowed).toBe(false);
  });
});

describe('documents (client): large deletes, consistency and concurrency', () => {
  it('deleting a document with thousands of tuples removes them a page at a time, in a few revisions', async () => {
    const doc = (await client('POST', '/database/Project', carol.token, { title: 'Crowded' })).body._id;
    const readers = Array.from({ length: 2500 }, (_, i) => `User:crowd-reader-${i}`);
    let revision = 0;
    for (let i = 0; i < readers.length; i += 1000) {
      const updates = readers.slice(i, i + 1000).map((subject) => ({ operation: 'create', subject, relation: 'reader', resource: `Project:${doc}` }));
      const w = await svc.http('POST', '/authorization/relations/write', { body: { updates } });
      expect(w.status).toBe(200);
      revision = w.body.revision;
    }
    const can = async (subject: string) =>
      (await svc.http('GET', `/authorization/permissions/can?subject=${subject}&permission=read&resource=Project:${doc}&consistency=fully_consistent`)).body.allowed;
    // Indexing 2,500 tuples can outlast a fully consistent read's 5 s wait on a loaded machine (seen with two workers
    // on two cores): the index is let catch up first, since this test is about the delete, not the wait.
    await waitIdle(svc.http);
    expect(await can(readers[2499]!)).toBe(true);
    expect((await client('DELETE', `/database/Project/${doc}`, carol.token)).body).toMatchObject({ tuples: 2501 });
    expect((await svc.http('GET', `/authorization/relations?search=Project:${doc}`)).body.count).toBe(0);
    await waitIdle(svc.http);
    expect([await can(readers[0]!), await can(readers[2499]!), await can(`User:${carol.id}`)]).toEqual([false, false, false]);
    // A page of at most 1,000 per revision: 2,500 readers in 3, then the owner (not one revision per tuple).
    const next = await svc.http('POST', '/authorization/relations/write', {
      body: { updates: [{ operation: 'create', subject: 'User:x', relation: 'reader', resource: 'Project:after-crowd' }] },
    });
    expect(next.status).toBe(200);
    expect(next.body.revision - revision).toBeLessThanOrEqual(6);
  }, 120_000);

  it('takes consistency and revision on the list, except on a schema with fields of those names, which still filter', async () => {
    const dana = await account('dana@example.com');
    expect((await svc.http('POST', '/database/schemas', { body: { name: 'Release', fields: { title: 'String', revision: 'Number' } } })).status).toBe(201);
    const made = [];
    for (const revision of [1, 2]) made.push((await client('POST', '/database/Release', dana.token, { title: `r${revision}`, revision })).body._id as string);
    expect(ids(await client('GET', '/database/Release?revision=2', dana.token))).toEqual([made[1]]);
    // Elsewhere they are the read's freshness, checked as on the admin reads.
    const latest = (await svc.http('POST', '/authorization/relations', { body: { subject: `User:${dana.id}`, relation: 'reader', resource: 'Project:fresh-list' } })).body
      .revision as number;
    expect((await client('GET', `/database/Project?consistency=at_least_as_fresh&revision=${latest}`, dana.token)).status).toBe(200);
    const bad = await client('GET', '/database/Project?consistency=eventually&revision=-1', dana.token);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('custom functions answer 404 with a clear code', async () => {
    for (const method of ['GET', 'POST']) {
      const r = await client(method, '/database/function/report', alice.token);
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('FUNCTION_NOT_FOUND');
    }
  });

  it('many users create documents at once, and each lists exactly its own', async () => {
    const people = await Promise.all(Array.from({ length: 6 }, (_, i) => account(`crowd${i}@db.example`)));
    const made = await Promise.all(people.flatMap((p) => [1, 2, 3].map((n) => client('POST', '/database/Project', p.token, { title: `${p.id}-${n}` }))));
    expect(made.every((r) => r.status === 201)).toBe(true);
    for (const p of people) {
      const list = await client('GET', '/database/Project', p.token);
      expect(list.body.documents.map((d: { title: string }) => d.title).sort()).toEqual([1, 2, 3].map((n) => `${p.id}-${n}`));
    }
  });
});
