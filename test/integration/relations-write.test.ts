// POST /authorization/relations/write and gRPC WriteRelations: arbitrary creates and deletes at one revision, validated whole.
import { AuthzGraphClient, AuthzGraphError } from '../../src/client/grpc.js';
import { startService, type TestService } from '../support/service.js';
import { openSocket } from '../support/socket-client.js';

let svc: TestService;
const folder = { name: 'Folder', relations: { parent: ['Folder'], viewer: ['User', 'Team'] }, permissions: { view: ['viewer', 'viewer->read', 'parent->view'] } };
type Op = 'create' | 'delete';
const u = (operation: Op, subject: string, relation: string, resource: string) => ({ operation, subject, relation, resource });
const write = (updates: unknown[]) => svc.http('POST', '/authorization/relations/write', { body: { updates } });
const can = async (subject: string, resource: string, revision: number) => {
  const q = new URLSearchParams({ subject, permission: 'view', resource, consistency: 'at_least_as_fresh', revision: String(revision) });
  const r = await svc.http('GET', `/authorization/permissions/can?${q}`);
  expect(r.status).toBe(200);
  return r.body.allowed as boolean;
};
const stored = async (search: string) => (await svc.http('GET', `/authorization/relations?search=${encodeURIComponent(search)}&limit=1000`)).body.count as number;
const state = async () => ({
  count: (await svc.http('GET', '/authorization/relations?limit=1')).body.count as number,
  revision: (await svc.http('GET', '/authorization/indexer/status')).body.revision as number,
});

beforeAll(async () => {
  svc = await startService({ ROUTER_RATE_LIMITS: JSON.stringify({ enabled: false }) });
  expect((await svc.http('POST', '/authorization/resources', { body: folder })).status).toBe(200);
});
afterAll(async () => {
  await svc?.stop();
});

describe('POST /authorization/relations/write: writes at one revision', () => {
  it('creates and deletes mixed at one revision; a read at that revision sees every one, and the feed lists them in order', async () => {
    const before = await write([
      u('create', 'Team:w', 'viewer', 'Folder:w1'),
      u('create', 'User:gone', 'viewer', 'Folder:w2'),
      u('create', 'Folder:w1', 'parent', 'Folder:w3'),
    ]);
    expect(before.body).toMatchObject({ created: 3, existing: 0, deleted: 0, missing: 0 });
    const updates = [
      u('create', 'User:m1', 'member', 'Team:w'), // inherits view on w1, and on w3 through parent
      u('delete', 'User:gone', 'viewer', 'Folder:w2'),
      u('create', 'User:x', 'viewer', 'Folder:w2'),
      u('delete', 'Folder:w1', 'parent', 'Folder:w3'), // w3 no longer inherits from w1
      u('create', 'Team:w', 'viewer', 'Folder:w1'), // stored already
      u('delete', 'User:never', 'viewer', 'Folder:w2'), // never stored
    ];
    const r = await write(updates);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ created: 2, existing: 1, deleted: 2, missing: 1, revision: expect.any(Number) });
    expect(r.headers.get('x-authz-revision')).toBe(String(r.body.revision));
    const rev = r.body.revision as number;
    expect(await can('User:m1', 'Folder:w1', rev)).toBe(true);
    expect(await can('User:m1', 'Folder:w3', rev)).toBe(false);
    expect(await can('User:gone', 'Folder:w2', rev)).toBe(false);
    expect(await can('User:x', 'Folder:w2', rev)).toBe(true);
    expect(await stored('user:gone#')).toBe(0);
    expect(await stored('folder:w1#parent@')).toBe(0);
    expect(await stored('user:m1#member@team:w')).toBe(1);

    // One revision, every update in call order with its own op; nothing split across pages.
    await svc.http('GET', '/authorization/permissions/can?subject=User:y&permission=view&resource=Folder:w1&consistency=fully_consistent');
    const feed = await svc.http('GET', `/authorization/changes?after=${rev - 1}&limit=1`);
    expect(feed.body.next).toBe(rev);
    expect(feed.body.changes.map((c: { revision: number; op: string; tuple: string }) => [c.revision, c.op, c.tuple]))
      .toEqual(updates.map((x) => [rev, x.operation, `${x.subject}#${x.relation}@${x.resource}`]));
  });

  it('writes 1,000 tuples with a different subject each in one call', async () => {
    const updates = Array.from({ length: 1000 }, (_, i) => u('create', `User:load${i}`, 'viewer', `Folder:load${i % 37}`));
    const r = await write(updates);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ created: 1000, existing: 0, deleted: 0, missing: 0 });
    expect(await can('User:load999', `Folder:load${999 % 37}`, r.body.revision)).toBe(true);
    expect(await stored('#viewer@folder:load')).toBe(1000);
  });
});

describe('POST /authorization/relations/write: refusals, and decisions it flips', () => {
  it('refuses the whole call when one update is invalid: nothing is stored and no revision is taken', async () => {
    const ok = [u('create', 'User:ok1', 'viewer', 'Folder:v1'), u('delete', 'Team:w', 'viewer', 'Folder:w1')];
    const start = await state();
    const undeclared = await write([...ok, u('create', 'User:ok2', 'owner', 'Folder:v1')]);
    expect(undeclared.status).toBe(422);
    expect(undeclared.body).toMatchObject({ code: 'RELATION_NOT_DEFINED', details: [{ index: 2, tuple: 'User:ok2#owner@Folder:v1' }] });
    const notAllowed = await write([...ok, u('create', 'Folder:v2', 'viewer', 'Folder:v1')]);
    expect(notAllowed.body).toMatchObject({ status: 422, code: 'RELATION_NOT_ALLOWED', details: [{ index: 2 }] });
    const unknownType = await write([u('create', 'User:a', 'viewer', 'Nope:1'), ...ok]);
    expect(unknownType.body).toMatchObject({ status: 422, code: 'UNKNOWN_TYPE', details: [{ index: 0 }] });
    const malformedDelete = await write([...ok, u('delete', 'not an object', 'viewer', 'Folder:v1')]);
    expect(malformedDelete.body).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', details: [{ index: 2 }] });
    for (const bad of [{ ...ok[0], operation: 'touch' }, { subject: 'User:a', relation: 'viewer', resource: 'Folder:v1' }, { ...ok[0], extra: 1 }]) {
      const r = await write([ok[1], bad]);
      expect(r.body).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
      expect(r.body.details[0].path).toMatch(/^body\.updates\.1/);
    }
    expect((await write([])).body).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', message: expect.stringContaining('at least one update') });
    expect(await state()).toEqual(start);
    expect(await can('Team:w', 'Folder:w1', start.revision)).toBe(true);
  });

  it('refuses more than 1,000 updates (400, or 413 past the array limit of every route)', async () => {
    const start = await state();
    const updates = (n: number) => Array.from({ length: n }, (_, i) => u('create', `User:over${i}`, 'viewer', 'Folder:over'));
    const over = await write(updates(1001));
    expect(over.body).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', details: [{ path: 'body.updates' }] });
    expect(over.body.message).toContain('more than 1000 updates; split the write into calls of at most 1000');
    const huge = await write(updates(10_001));
    expect(huge.body).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('body.updates has more than 10000 items') });
    expect(await state()).toEqual(start);
  });

  it('refuses the same tuple twice in one call, naming both updates', async () => {
    const start = await state();
    for (const second of ['create', 'delete'] as const) {
      const r = await write([u('create', 'User:d', 'viewer', 'Folder:d'), u('create', 'User:e', 'viewer', 'Folder:d'), u(second, 'User:d', 'viewer', 'Folder:d')]);
      expect(r.body).toMatchObject({
        status: 400,
        code: 'VALIDATION_FAILED',
        message: expect.stringContaining('updates.0 and updates.2 name the same tuple User:d#viewer@Folder:d'),
        details: [{ index: 0, tuple: 'User:d#viewer@Folder:d' }, { index: 2, tuple: 'User:d#viewer@Folder:d' }],
      });
    }
    expect(await state()).toEqual(start);
  });

  it('flips a subscribed decision each way, with the revision of the write', async () => {
    const call = (path: string) =>
      fetch(svc.client + path, { method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'writer@example.com', password: 'correct horse' }) });
    await call('/authentication/local/new');
    const { userId, accessToken } = await (await call('/authentication/local')).json() as { userId: string; accessToken: string };
    const me = `User:${userId}`;
    await write([u('create', me, 'viewer', 'Folder:lose'), u('create', 'Team:watch', 'viewer', 'Folder:gain')]);
    await svc.http('GET', `/authorization/permissions/can?subject=${me}&permission=view&resource=Folder:lose&consistency=fully_consistent`);
    const s = await openSocket(svc.socket, accessToken);
    s.send({ type: 'subscribe', topic: 'decisions', id: 'w', items: [{ action: 'view', resource: 'Folder:gain' }, { action: 'view', resource: 'Folder:lose' }] });
    expect((await s.next((m) => m.type === 'subscribed')).items.map((i: { allowed: boolean }) => i.allowed)).toEqual([false, true]);
    const r = await write([u('create', me, 'member', 'Team:watch'), u('delete', me, 'viewer', 'Folder:lose')]);
    const flips = [await s.next((m) => m.type === 'decision', 2000), await s.next((m) => m.type === 'decision', 2000)];
    expect(flips.map((f) => [f.resource, f.allowed, f.revision]).sort()).toEqual([['Folder:gain', true, r.body.revision], ['Folder:lose', false, r.body.revision]]);
    s.ws.close();
  });
});

describe('gRPC WriteRelations', () => {
  let client: AuthzGraphClient;
  beforeAll(() => {
    client = new AuthzGraphClient({ address: svc.grpc, masterkey: svc.config.MASTER_KEY });
  });
  afterAll(() => client?.close());
  const refused = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      return e as AuthzGraphError;
    }
    throw new Error('the call was not refused');
  };

  it('writes creates and deletes at one revision through a real gRPC client, and refuses bad input with nothing written', async () => {
    await client.writeRelations([{ operation: 'OPERATION_CREATE', subject: 'User:g1', relation: 'viewer', resource: 'Folder:g' }]);
    const r = await client.writeRelations([
      { operation: 'OPERATION_DELETE', subject: 'User:g1', relation: 'viewer', resource: 'Folder:g' },
      { operation: 'OPERATION_CREATE', subject: 'User:g2', relation: 'viewer', resource: 'Folder:g' },
    ]);
    expect(r).toEqual({ created: 1, existing: 0, deleted: 1, missing: 0, revision: expect.any(Number) });
    const fresh = { consistency: 'AT_LEAST_AS_FRESH' as const, revision: r.revision };
    expect(await client.can({ subject: 'User:g1', permission: 'view', resource: 'Folder:g', ...fresh })).toBe(false);
    expect(await client.can({ subject: 'User:g2', permission: 'view', resource: 'Folder:g', ...fresh })).toBe(true);

    const start = await state();
    const dup = await refused(client.writeRelations([
      { operation: 'OPERATION_CREATE', subject: 'User:g3', relation: 'viewer', resource: 'Folder:g' },
      { operation: 'OPERATION_DELETE', subject: 'User:g3', relation: 'viewer', resource: 'Folder:g' },
    ]));
    expect(dup).toMatchObject({ grpcCode: 3, code: 'VALIDATION_FAILED', details: [{ index: 0 }, { index: 1 }] });
    const model = await refused(client.writeRelations([
      { operation: 'OPERATION_CREATE', subject: 'User:g4', relation: 'viewer', resource: 'Folder:g' },
      { operation: 'OPERATION_CREATE', subject: 'User:g4', relation: 'owner', resource: 'Folder:g' },
    ]));
    expect(model).toMatchObject({ grpcCode: 9, code: 'RELATION_NOT_DEFINED', details: [{ index: 1 }] });
    const unspecified = await refused(client.writeRelations([{ operation: 'OPERATION_UNSPECIFIED' as never, subject: 'User:g5', relation: 'viewer', resource: 'Folder:g' }]));
    expect(unspecified).toMatchObject({ grpcCode: 3, code: 'VALIDATION_FAILED' });
    expect((await refused(client.writeRelations([]))).grpcCode).toBe(3);
    expect(await state()).toEqual(start);
  });
});

describe('a redefinition of a type with more objects than a page of its re-index', () => {
  it('re-indexes every object, page after page, including tuples between objects of the type', async () => {
    const paged = { name: 'Paged', relations: { viewer: ['User'], parent: ['Paged'] }, permissions: { view: ['viewer'] } };
    expect((await svc.http('POST', '/authorization/resources', { body: paged })).status).toBe(200);
    const id = (i: number) => `Paged:${String(i).padStart(4, '0')}`;
    const updates = [
      ...Array.from({ length: 1200 }, (_, i) => u('create', 'User:pv', 'viewer', id(i))),
      // The chain lies in the third page of 500 objects.
      u('create', 'User:top', 'viewer', id(1000)),
      ...Array.from({ length: 100 }, (_, i) => u('create', id(1000 + i), 'parent', id(1001 + i))),
    ];
    for (let i = 0; i < updates.length; i += 1000) expect((await write(updates.slice(i, i + 1000))).status).toBe(200);
    const settled = async () => {
      for (let n = 0; n < 600; n++) {
        if ((await svc.http('GET', '/authorization/indexer/status')).body.pending === 0) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('the index did not settle');
    };
    const view = async (subject: string, i: number) =>
      (await svc.http('GET', `/authorization/permissions/can?${new URLSearchParams({ subject, permission: 'view', resource: id(i) })}`)).body.allowed as boolean;
    await settled();
    expect([await view('User:top', 1000), await view('User:top', 1050), await view('User:pv', 1199)]).toEqual([true, false, true]);
    // Through parent now: User:top views the chain 1000..1100. Asked once the re-index is done, so the index answers.
    expect((await svc.http('PATCH', '/authorization/resources/Paged', { body: { relations: paged.relations, permissions: { view: ['viewer', 'parent->view'] } } })).status).toBe(
      200,
    );
    await settled();
    expect([await view('User:top', 1001), await view('User:top', 1100), await view('User:top', 1101), await view('User:pv', 1199), await view('User:pv', 700)])
      .toEqual([true, true, false, true, true]);
    const listed = await svc.http('GET',
      `/authorization/permissions/objects?${new URLSearchParams({ subject: 'User:top', permission: 'view', resourceType: 'Paged', limit: '1000' })}`);
    expect(listed.body.count).toBe(101);
  }, 180_000);
});
