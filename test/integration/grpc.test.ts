// gRPC with a real @grpc/grpc-js client: every method, credentials, errors, agreement with REST, Watch across a restart.
import { credentials, loadPackageDefinition, makeGenericClientConstructor, type GrpcObject, type ServiceClientConstructor } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { AuthzGraphClient, AuthzGraphError } from '../../src/client/grpc.js';
import { parseTupleText } from '../../src/engine/ids.js';
import { prefixer } from '../support/replay.js';
import { loadCases } from '../support/scenarios.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
let client: AuthzGraphClient;
const folder = { name: 'Folder', relations: { parent: ['Folder'], viewer: ['User', 'Team'] }, permissions: { view: ['viewer', 'viewer->read', 'parent->view'] } };
const refused = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    return e as AuthzGraphError;
  }
  throw new Error('the call was not refused');
};

beforeAll(async () => {
  svc = await startService();
  client = new AuthzGraphClient({ address: svc.grpc, masterkey: svc.config.MASTER_KEY });
});
afterAll(async () => {
  client?.close();
  await svc?.stop();
});

describe('gRPC: reads, writes and errors', () => {
  it('defines types, writes and reads relations and grants, and decides', async () => {
    const def = await client.createResourceDefinition(folder);
    expect(def.status).toBe('processed');
    expect(def.resourceDefinition).toMatchObject({ name: 'Folder', relations: { parent: ['Folder'] } });
    expect((await client.getResourceDefinition('Folder')).permissions.view).toEqual(folder.permissions.view);
    expect((await client.listResourceDefinitions({ search: 'fold' })).count).toBe(1);
    const created = await client.createRelation('Folder:root', 'parent', 'Folder:leaf');
    expect(created).toMatchObject({ created: true, relation: { computedTuple: 'Folder:root#parent@Folder:leaf' } });
    expect((await client.createRelation('Folder:root', 'parent', 'Folder:leaf')).created).toBe(false);
    await client.createRelation('Team:t', 'viewer', 'Folder:root');
    await client.createRelation('User:m', 'member', 'Team:t');
    expect(await client.can({ subject: 'User:m', permission: 'view', resource: 'Folder:leaf' })).toBe(true);
    expect(await client.can({ subject: 'User:x', permission: 'view', resource: 'Folder:leaf', consistency: 'FULLY_CONSISTENT' })).toBe(false);
    expect(await client.checkBulk([{ subject: 'User:m', permission: 'view', resource: 'Folder:root' }, { subject: 'User:x', permission: 'view', resource: 'Folder:root' }]))
      .toEqual([true, false]);
    const evaluation = await client.evaluate({ subject: 'User:m', permission: 'view', resource: 'Folder:leaf' });
    expect(evaluation.paths).toEqual(['User:m#member@Team:t', 'Team:t#viewer@Folder:root', 'Folder:root#parent@Folder:leaf']);
    const many = await client.createRelations('User:bulk', 'viewer', ['Folder:a', 'Folder:b']);
    expect(many).toMatchObject({ created: 2, existing: 0 });
    // The list shows what the index has applied: a bulk write once its batch is indexed.
    const listed = await client.readRelations({ resourceType: 'Folder', limit: 2, consistency: 'AT_LEAST_AS_FRESH', revision: many.revision });
    expect(listed).toMatchObject({ count: 4, countCapped: false });
    expect(listed.relations).toHaveLength(2);
    const granted = await client.grantPermission({ subject: 'User:g', permission: 'view', resource: 'Folder:a' });
    expect(granted.created).toBe(true);
    expect(await client.can({ subject: 'User:g', permission: 'view', resource: 'Folder:a' })).toBe(true);
    await client.revokePermission({ subject: 'User:g', permission: 'view', resource: 'Folder:a' });
    expect(await client.can({ subject: 'User:g', permission: 'view', resource: 'Folder:a' })).toBe(false);
    const deleted = await client.deleteRelation(many.relations[1]!.id);
    expect(deleted.deleted.computedTuple).toBe('User:bulk#viewer@Folder:b');

    await client.createResourceDefinition({ name: 'Scratch', relations: { viewer: ['User'] }, permissions: { view: ['viewer'] } });
    const updated = await client.updateResourceDefinition({ name: 'Scratch', relations: { viewer: ['User', 'Team'] }, permissions: { view: ['viewer'] } });
    expect(updated).toMatchObject({ status: 'processed', resourceDefinition: { version: 1, relations: { viewer: ['User', 'Team'] } } });
    expect((await client.deleteResourceDefinition('Scratch')).deleted.name).toBe('Scratch');
    expect((await refused(client.getResourceDefinition('Scratch'))).grpcCode).toBe(5);
  });

  it('streams lookups past one page, and keeps access views', async () => {
    const names = Array.from({ length: 1200 }, (_, i) => `Folder:n${String(i).padStart(4, '0')}`);
    await client.createRelations('User:many', 'viewer', names.slice(0, 1000));
    await client.createRelations('User:many', 'viewer', names.slice(1000));
    const objects: string[] = [];
    for await (const o of client.lookupResources({ subject: 'User:many', permission: 'view', resourceType: 'Folder', consistency: 'FULLY_CONSISTENT' })) objects.push(o);
    expect(objects).toHaveLength(1200);
    expect(new Set(objects).size).toBe(1200);
    const subjects: string[] = [];
    for await (const s of client.lookupSubjects({ permission: 'view', resource: 'Folder:leaf', subjectType: 'User' })) subjects.push(s);
    expect(subjects).toEqual(['User:m']);
    const view = await client.createAccessView({ name: 'many', subject: 'User:many', permission: 'view', resourceType: 'Folder' });
    expect(view.count).toBe(1200);
    expect((await client.readAccessView('many', 1199, 10)).objects).toEqual(['Folder:n1199']);
    expect((await client.refreshAccessView('many')).count).toBe(1200);
    expect((await client.listAccessViews()).count).toBe(1);
    expect((await client.deleteAccessView('many')).deleted).toBe('many');
  });

  it('bad input is INVALID_ARGUMENT with the catalog code and writes nothing; the model refusing is FAILED_PRECONDITION', async () => {
    const before = (await client.readRelations()).count;
    const bad = await refused(client.createRelation('nope', 'viewer', 'Folder:x'));
    expect(bad).toMatchObject({ grpcCode: 3, code: 'VALIDATION_FAILED' });
    expect((await refused(client.createRelations('User:a', 'viewer', ['Folder:ok', 'Folder:bad id']))).grpcCode).toBe(3);
    expect((await refused(client.createRelation('Folder:x', 'viewer', 'Folder:y'))).code).toBe('RELATION_NOT_ALLOWED');
    expect((await refused(client.createRelation('Folder:x', 'viewer', 'Folder:y'))).grpcCode).toBe(9);
    expect((await refused(client.getResourceDefinition('Nope'))).grpcCode).toBe(5);
    expect((await refused(client.checkBulk([]))).grpcCode).toBe(3);
    expect((await client.readRelations()).count).toBe(before);
  });

  it('a refused stream ends with its status, and input the status header cannot carry still gets its catalog code', async () => {
    const lookup = (async () => {
      for await (const _ of client.lookupResources({ subject: 'not an object', permission: 'view', resourceType: 'Folder' })) { /* none */ }
    })();
    expect(await refused(lookup)).toMatchObject({ grpcCode: 3, code: 'VALIDATION_FAILED' });
    const odd = await refused(client.createResourceDefinition({ name: 'Odd', relations: { 'a.é': ['User'] } }));
    expect(odd).toMatchObject({ grpcCode: 3, code: 'VALIDATION_FAILED' });
    expect(odd.details.length).toBeGreaterThan(0);
    const many = await refused(client.checkBulk(Array.from({ length: 100 }, () => ({ subject: 'bad', permission: 'bad name', resource: 'bad' }))));
    expect(many.code).toBe('VALIDATION_FAILED');
    expect(Array.isArray(many.details)).toBe(true);
    expect(await client.can({ subject: 'User:m', permission: 'view', resource: 'Folder:leaf' })).toBe(true);
  });
});

describe('gRPC: credentials, health, reflection and agreement with REST', () => {
  it('no or wrong credentials are UNAUTHENTICATED', async () => {
    for (const options of [{}, { masterkey: 'wrong-wrong-wrong-wrong' }, { token: 'cdt_not-a-token' }]) {
      const c = new AuthzGraphClient({ address: svc.grpc, ...options });
      try {
        expect(await refused(c.can({ subject: 'User:m', permission: 'view', resource: 'Folder:leaf' }))).toMatchObject({ grpcCode: 16, code: 'UNAUTHENTICATED' });
      } finally {
        c.close();
      }
    }
  });

  it('answers the standard health service and server reflection', async () => {
    const Health = makeGenericClientConstructor(healthService as never, 'Health');
    const health = new Health(svc.grpc, credentials.createInsecure()) as unknown as {
      check(req: { service: string }, cb: (e: Error | null, r?: { status: string | number }) => void): void;
      close(): void;
    };
    const status = await new Promise<string>((resolve, reject) => health.check({ service: 'authzgraph.v1.AuthzGraph' }, (e, r) => (e ? reject(e) : resolve(String(r?.status)))));
    health.close();
    expect(status).toBe('SERVING');
    const { loadSync } = await import('@grpc/proto-loader');
    const { createRequire } = await import('node:module');
    const reflectionProto = createRequire(import.meta.url).resolve('@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto');
    const pkg = loadPackageDefinition(loadSync(reflectionProto)) as unknown as { grpc: { reflection: { v1: GrpcObject } } };
    const Ctor = pkg.grpc.reflection.v1.ServerReflection as ServiceClientConstructor;
    const reflection = new Ctor(svc.grpc, credentials.createInsecure());
    const stream = (reflection as unknown as { ServerReflectionInfo(): NodeJS.ReadWriteStream & { write(m: unknown): void; end(): void } }).ServerReflectionInfo();
    const answer = new Promise<{ listServicesResponse?: { service: Array<{ name: string }> } }>((resolve) => stream.once('data', resolve));
    stream.write({ listServices: '' });
    const services = (await answer).listServicesResponse!.service.map((s) => s.name);
    stream.end();
    reflection.close();
    expect(services).toContain('authzgraph.v1.AuthzGraph');
  });

  it('Can agrees with REST /permissions/can on every conformance case', async () => {
    let compared = 0;
    for (const [n, { scenario }] of loadCases().entries()) {
      const px = prefixer(`g${n}_`);
      for (const d of scenario.definitions ?? []) await svc.http('POST', '/authorization/resources', { body: px.definition(d) });
      for (const text of scenario.tuples ?? []) await svc.http('POST', '/authorization/relations', { body: parseTupleText(px.tuple(text)) });
      for (const text of scenario.grants ?? []) {
        const g = parseTupleText(px.tuple(text))!;
        await svc.http('POST', '/authorization/permissions/grant', { body: { subject: g.subject, permission: g.relation, resource: g.resource } });
      }
      for (const c of scenario.checks ?? []) {
        const q = { subject: px.object(c.subject), permission: c.action, resource: px.object(c.resource) };
        const rest = await svc.http('GET',
          `/authorization/permissions/can?subject=${encodeURIComponent(q.subject)}&permission=${encodeURIComponent(q.permission)}&resource=${
            encodeURIComponent(q.resource)
          }&consistency=fully_consistent`);
        if (rest.status !== 200) continue; // a check the route refuses as malformed is refused by both (compared below)
        const viaGrpc = await client.can({ ...q, consistency: 'FULLY_CONSISTENT' });
        expect(`${scenario.name} ${q.subject} ${q.permission} ${q.resource}: ${viaGrpc}`).toBe(`${scenario.name} ${q.subject} ${q.permission} ${q.resource}: ${rest.body.allowed}`);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(100);
  }, 300_000); // every case written one tuple at a time: minutes on a busy machine
});

describe('gRPC: Watch', () => {
  it('Watch follows the change feed and resumes from a revision across a restart with no gap or repeat', async () => {
    // The feed's end: every page read until one comes back empty.
    let start = 0;
    for (let page = await svc.http('GET', '/authorization/changes?after=0&limit=1000'); page.body.changes.length > 0;
      page = await svc.http('GET', `/authorization/changes?after=${start}&limit=1000`)) start = page.body.next;
    const seen: string[] = [];
    let next = start;
    const abort = new AbortController();
    const following = (async () => {
      for await (const page of client.watch(start, abort.signal)) {
        for (const c of page.changes) seen.push(c.tuple);
        next = page.nextRevision;
        if (seen.length >= 3) abort.abort();
      }
    })();
    for (const i of [1, 2, 3]) await client.createRelation(`User:w${i}`, 'viewer', 'Folder:watched');
    await following;
    expect(seen).toEqual(['User:w1#viewer@Folder:watched', 'User:w2#viewer@Folder:watched', 'User:w3#viewer@Folder:watched']);

    client.close();
    await svc.stop();
    svc = await startService({}, { wipe: false });
    client = new AuthzGraphClient({ address: svc.grpc, masterkey: svc.config.MASTER_KEY });
    for (const i of [4, 5]) await client.createRelation(`User:w${i}`, 'viewer', 'Folder:watched');
    const after: string[] = [];
    const again = new AbortController();
    for await (const page of client.watch(next, again.signal)) {
      after.push(...page.changes.map((c) => c.tuple));
      if (after.length >= 2) again.abort();
    }
    expect(after).toEqual(['User:w4#viewer@Folder:watched', 'User:w5#viewer@Folder:watched']);
  });
});
