// Caches on the read path (object lists, schemas) and the token deny list, with two service processes on the same stores:
// a write acknowledged by one is seen by the next read on the other, whatever that read had cached (a process stopped
// with SIGSTOP, a child on the real stack: read-caches-stopped.test.ts).
import { randomBytes } from 'node:crypto';
import { defineFoldersAndDocs } from '../support/folder-docs.js';
import { startService, type TestService } from '../support/service.js';

let a: TestService;
let b: TestService;
beforeAll(async () => {
  const shared = { CLIENT_JWT_SECRET: randomBytes(32).toString('hex') };
  a = await startService(shared);
  // Same stores and secrets, its own caches: another process of the same deployment.
  b = await startService({ ...shared, MASTER_KEY: a.config.MASTER_KEY }, { wipe: false });
}, 120_000);
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

async function write(svc: TestService, subject: string, relation: string, resource: string) {
  const r = await svc.http('POST', '/authorization/relations', { body: { subject, relation, resource } });
  expect(r.status).toBe(201);
  return r;
}

async function readable(svc: TestService, subject: string, extra = '') {
  const r = await svc.http('GET', `/authorization/permissions/objects?subject=${subject}&permission=view&resourceType=Doc&skip=0&limit=100${extra}`);
  expect(r.status).toBe(200);
  return r.body as { objects: string[]; count: number };
}

describe('object lists', () => {
  beforeAll(async () => {
    await defineFoldersAndDocs(a);
  });

  it('follows every kind of write made through another process, page after page', async () => {
    for (let i = 0; i < 30; i++) expect((await write(a, 'User:u', 'owner', `Doc:d${String(i).padStart(2, '0')}`)).status).toBe(201);
    expect((await readable(a, 'User:u')).count).toBe(30);
    const page2 = await a.http('GET', '/authorization/permissions/objects?subject=User:u&permission=view&resourceType=Doc&skip=25&limit=25');
    expect(page2.body.objects).toEqual(['Doc:d25', 'Doc:d26', 'Doc:d27', 'Doc:d28', 'Doc:d29']);

    // A tuple on one more document (the type's rows change).
    await write(b, 'User:u', 'owner', 'Doc:x1');
    expect((await readable(a, 'User:u')).objects).toContain('Doc:x1');
    // Membership of a team that owns a document (the subject's keys change).
    await write(b, 'Team:t', 'owner', 'Doc:x2');
    expect((await readable(a, 'User:u')).objects).not.toContain('Doc:x2');
    await write(b, 'User:u', 'member', 'Team:t');
    expect((await readable(a, 'User:u')).objects).toContain('Doc:x2');
    // One more document for the team: only that document's rows change, not the user's keys nor any flat.
    await write(b, 'Team:t', 'owner', 'Doc:x4');
    expect((await readable(a, 'User:u')).objects).toContain('Doc:x4');
    // A folder chain: the documents' rows refer to the folder's flattened set, which changes with the grant on the root.
    await write(b, 'Folder:f1', 'folder', 'Doc:x3');
    await write(b, 'Folder:f0', 'parent', 'Folder:f1');
    expect((await readable(a, 'User:u')).objects).not.toContain('Doc:x3');
    await write(b, 'User:u', 'viewer', 'Folder:f0');
    expect((await readable(a, 'User:u')).objects).toContain('Doc:x3');
    // Deletes, through the other process as well.
    const tuples = await b.http('GET', '/authorization/relations?search=User:u%23viewer@Folder:f0');
    expect(tuples.body.count).toBe(1);
    expect((await b.http('DELETE', `/authorization/relations/${tuples.body.relations[0]._id}`)).status).toBe(200);
    const after = await readable(a, 'User:u');
    expect(after.objects).not.toContain('Doc:x3');
    expect(after.count).toBe(33);
    // Both processes agree, and a fully consistent read (which skips the cache) agrees too.
    expect(await readable(b, 'User:u')).toEqual(after);
    expect(await readable(a, 'User:u', '&consistency=fully_consistent')).toEqual(after);
  });
});

describe('decisions held in each process', () => {
  beforeAll(async () => {
    expect((await a.http('POST', '/authorization/resources', { body: {
      name: 'Doc',
      relations: { folder: ['Folder'], owner: ['User', 'Team'] },
      permissions: { view: ['owner', 'owner->read', 'folder->view'] },
    } })).status).toBe(200);
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const can = async (svc: { http(method: string, path: string): Promise<{ status: number; body: any }> }, subject: string, resource: string) => {
    const r = await svc.http('GET', `/authorization/permissions/can?subject=${subject}&permission=view&resource=${resource}`);
    expect(r.status).toBe(200);
    return r.body.allowed as boolean;
  };
  const cachedHits = async (svc: TestService) => {
    const text = (await svc.http('GET', '/metrics')).text;
    return [...text.matchAll(/authz_check_decisions_total\{allowed="\w+",cached="true"\} (\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);
  };

  it('a decision cached in one process is never served after a write through the other has returned', async () => {
    for (let i = 0; i < 10; i++) {
      const doc = `Doc:held${i}`;
      // Asked many times at once in b, so b holds the answer; the later asks are cache hits.
      const hitsBefore = await cachedHits(b);
      expect(await Promise.all(Array.from({ length: 8 }, () => can(b, 'User:h', doc)))).toEqual(Array(8).fill(false));
      // A re-index still running from the definition above moves every epoch on; asked again, b answers from its cache.
      for (let k = 0; k < 100 && (await cachedHits(b)) <= hitsBefore; k++) expect(await can(b, 'User:h', doc)).toBe(false);
      expect(await cachedHits(b)).toBeGreaterThan(hitsBefore);
      await write(a, 'User:h', 'owner', doc);
      expect(await Promise.all(Array.from({ length: 8 }, () => can(b, 'User:h', doc)))).toEqual(Array(8).fill(true));
      const tuple = await a.http('GET', `/authorization/relations?search=User:h%23owner@${doc}`);
      expect((await a.http('DELETE', `/authorization/relations/${tuple.body.relations[0]._id}`)).status).toBe(200);
      expect(await can(b, 'User:h', doc)).toBe(false);
      expect(await can(a, 'User:h', doc)).toBe(false);
    }
  });

  it('a change deep in an inherited chain reaches decisions cached in both processes (a flat the rows refer to changed)', async () => {
    await write(a, 'Folder:g1', 'folder', 'Doc:deep');
    await write(a, 'Folder:g0', 'parent', 'Folder:g1');
    for (const svc of [a, b, a, b]) expect(await can(svc, 'User:v', 'Doc:deep')).toBe(false);
    await write(b, 'User:v', 'viewer', 'Folder:g0');
    expect(await can(a, 'User:v', 'Doc:deep')).toBe(true);
    expect(await can(b, 'User:v', 'Doc:deep')).toBe(true);
    const tuple = await a.http('GET', '/authorization/relations?search=Folder:g0%23parent@Folder:g1');
    expect((await a.http('DELETE', `/authorization/relations/${tuple.body.relations[0]._id}`)).status).toBe(200);
    expect(await can(b, 'User:v', 'Doc:deep')).toBe(false);
    expect(await can(a, 'User:v', 'Doc:deep')).toBe(false);
  });

  it('checks racing a write in another process: every check that starts after the write returned sees it', async () => {
    for (let i = 0; i < 5; i++) {
      const doc = `Doc:race${i}`;
      expect(await can(b, 'User:r', doc)).toBe(false);
      let returned = false;
      const late: Promise<boolean>[] = [];
      const spin = (async () => {
        while (!returned) {
          const started = returned;
          const answer = await can(b, 'User:r', doc);
          if (started) late.push(Promise.resolve(answer));
        }
      })();
      await write(a, 'User:r', 'owner', doc);
      returned = true;
      for (let k = 0; k < 5; k++) late.push(can(b, 'User:r', doc));
      await spin;
      expect(await Promise.all(late)).toEqual(Array(late.length).fill(true));
    }
  });
});

describe('definitions', () => {
  it('a type defined in one process takes writes and checks in the other at once', async () => {
    for (let i = 0; i < 5; i++) {
      const name = `Card${i}`;
      expect((await a.http('POST', '/authorization/resources', { body: { name, relations: { holder: ['User'] }, permissions: { use: ['holder'] } } })).status).toBe(200);
      await write(b, 'User:h', 'holder', `${name}:c`);
      expect((await b.http('GET', `/authorization/permissions/can?subject=User:h&permission=use&resource=${name}:c`)).body.allowed).toBe(true);
      expect((await b.http('POST', '/authorization/permissions/grant', { body: { subject: 'User:g', permission: 'use', resource: `${name}:c` } })).status).toBeLessThan(300);
    }
  });
});

describe('schemas', () => {
  it('a schema turned to authorization in one process guards its documents in the other at once', async () => {
    expect((await a.http('POST', '/database/schemas', { body: { name: 'Memo', fields: { text: 'String' } } })).status).toBe(201);
    await b.http('POST', `${b.client}/authentication/local/new`, { body: { email: 'w@caches.io', password: 'correct horse' }, headers: {} });
    const login = await b.http('POST', `${b.client}/authentication/local`, { body: { email: 'w@caches.io', password: 'correct horse' }, headers: {} });
    const asW = { authorization: `Bearer ${login.body.accessToken}` };
    expect((await a.http('POST', `${a.client}/database/Memo`, { body: { text: 'open' }, headers: asW })).status).toBe(201);
    // Unguarded memos have no owner: every signed-in user sees both.
    await b.http('POST', `${b.client}/database/Memo`, { body: { text: 'second' }, headers: asW });
    expect((await a.http('GET', `${a.client}/database/Memo`, { headers: asW })).body.count).toBe(2);

    const imported = await b.http('POST', '/database/schemas/import', {
      body: { schemas: [{ name: 'Memo', fields: { text: 'String' }, serviceOptions: { authorization: { enabled: true } } }] },
    });
    expect(imported.status).toBe(200);
    expect(imported.body.updated).toEqual(['Memo']);
    // Guarded now: nobody owns the two memos, so the list in the first process is empty.
    const list = await a.http('GET', `${a.client}/database/Memo`, { headers: asW });
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(0);
  });
});

describe('token deny list', () => {
  it('a logout in one process refuses the access token in the other at once', async () => {
    await a.http('POST', `${a.client}/authentication/local/new`, { body: { email: 'l@caches.io', password: 'correct horse' }, headers: {} });
    const login = await a.http('POST', `${a.client}/authentication/local`, { body: { email: 'l@caches.io', password: 'correct horse' }, headers: {} });
    const asL = { authorization: `Bearer ${login.body.accessToken}` };
    expect((await a.http('GET', `${a.client}/authentication/user`, { headers: asL })).status).toBe(200);
    expect((await b.http('GET', `${b.client}/authentication/user`, { headers: asL })).status).toBe(200);
    expect((await b.http('POST', `${b.client}/authentication/logout`, { headers: asL })).status).toBe(200);
    const inB = await b.http('GET', `${b.client}/authentication/user`, { headers: asL });
    expect(inB.status).toBe(401);
    expect(inB.body.code).toBe('UNAUTHENTICATED');
    const inA = await a.http('GET', `${a.client}/authentication/user`, { headers: asL });
    expect(inA.status).toBe(401);
    expect(inA.body.code).toBe('UNAUTHENTICATED');
  });
});
