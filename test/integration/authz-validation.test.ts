// Every validation rule answers 4xx with the catalog body and changes nothing (proved by re-reading).
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
const doc = { name: 'Doc', relations: { owner: ['User', 'Team'], parent: ['Folder'] }, permissions: { read: ['owner', 'owner->read', 'parent->read'] } };
beforeAll(async () => {
  svc = await startService();
  expect((await svc.http('POST', '/authorization/resources', { body: doc })).status).toBe(200);
  expect((await svc.http('POST', '/authorization/relations', { body: { subject: 'User:u', relation: 'owner', resource: 'Doc:d' } })).status).toBe(201);
});
afterAll(async () => {
  await svc?.stop();
});

async function snapshot() {
  const [defs, rels, doc] = await Promise.all([
    svc.http('GET', '/authorization/resources?limit=1000'),
    svc.http('GET', '/authorization/relations?limit=1000'),
    svc.http('GET', '/authorization/resources/Doc'),
  ]);
  return JSON.stringify([defs.body, rels.body, doc.body]);
}

const definitionCases: Array<[string, unknown, number, string]> = [
  ['bad type name', { name: '1Doc', relations: {}, permissions: {} }, 400, 'VALIDATION_FAILED'],
  ['unknown entry', { name: 'Bad', relations: { owner: ['User'] }, permissions: { read: ['nope'] } }, 422, 'INVALID_DEFINITION'],
  ['arrow from a non-relation', { name: 'Bad', relations: { owner: ['User'] }, permissions: { read: ['owner'], x: ['read->read'] } }, 422, 'INVALID_DEFINITION'],
  ['relation and permission with one name', { name: 'Bad', relations: { owner: ['User'] }, permissions: { owner: ['owner'] } }, 422, 'INVALID_DEFINITION'],
  ['bad relation name', { name: 'Bad', relations: { 'a-b': ['User'] }, permissions: {} }, 422, 'INVALID_DEFINITION'],
  ['bad subject type', { name: 'Bad', relations: { owner: ['no such'] }, permissions: {} }, 422, 'INVALID_DEFINITION'],
  ['entries not an array', { name: 'Bad', relations: {}, permissions: { read: 'owner' } }, 400, 'VALIDATION_FAILED'],
  ['unknown field', { name: 'Bad', relations: {}, permissions: {}, extra: true }, 400, 'VALIDATION_FAILED'],
];

describe('definition validation', () => {
  it.each(definitionCases)('%s', async (_label, body, status, code) => {
    const before = await snapshot();
    const r = await svc.http('POST', '/authorization/resources', { body });
    expect(r.status).toBe(status);
    expect(r.body).toMatchObject({ status, code, message: expect.any(String), details: expect.any(Array) });
    if (status === 422) expect(r.body.details[0]).toEqual({ path: expect.stringMatching(/^(relations|permissions)\./), message: expect.any(String) });
    expect(await snapshot()).toBe(before);
    expect((await svc.http('GET', '/authorization/resources/Bad')).status).toBe(404);
  });

  it('versions: equal and same content is acknowledged, equal and different is 409, lower is ignored', async () => {
    const created = await svc.http('POST', '/authorization/resources', { body: { name: 'Vers', relations: { a: ['User'] }, permissions: {}, version: 3 } });
    expect(created.body.status).toBe('processed');
    expect(created.headers.get('x-authz-revision')).toBe(String(created.body.revision));
    const same = await svc.http('PATCH', '/authorization/resources/Vers', { body: { relations: { a: ['User'] }, permissions: {}, version: 3 } });
    expect(same.body.status).toBe('acknowledged');
    const before = await snapshot();
    const clash = await svc.http('PATCH', '/authorization/resources/Vers', { body: { relations: { b: ['User'] }, permissions: {}, version: 3 } });
    expect(clash.status).toBe(409);
    expect(clash.body.code).toBe('VERSION_CONFLICT');
    const lower = await svc.http('PATCH', '/authorization/resources/Vers', { body: { relations: { b: ['User'] }, permissions: {}, version: 1 } });
    expect(lower.body.status).toBe('ignored');
    expect(await snapshot()).toBe(before);
    const next = await svc.http('PATCH', `/authorization/resources/${created.body.resourceDefinition._id}`, { body: { relations: { b: ['User'] }, permissions: {} } });
    expect(next.body).toMatchObject({ status: 'processed', resourceDefinition: { version: 4, relations: { b: ['User'] } } });
  });

  it('built-in User and Team exist; Team cannot be deleted; unknown ids are 404', async () => {
    const team = await svc.http('GET', '/authorization/resources/Team');
    expect(team.status).toBe(200);
    expect(Object.keys(team.body.relations).sort()).toEqual(['editAll', 'member', 'owner', 'readAll']);
    expect((await svc.http('GET', '/authorization/resources/User')).status).toBe(200);
    const del = await svc.http('DELETE', '/authorization/resources/Team');
    expect(del.status).toBe(422);
    expect((await svc.http('GET', '/authorization/resources/Team')).status).toBe(200);
    expect((await svc.http('GET', '/authorization/resources/NoSuch')).status).toBe(404);
    expect((await svc.http('PATCH', '/authorization/resources/NoSuch', { body: { relations: {}, permissions: {} } })).status).toBe(404);
  });
});

const tupleCases: Array<[string, unknown, number, string]> = [
  ['(a) malformed subject', { subject: 'User', relation: 'owner', resource: 'Doc:d2' }, 400, 'VALIDATION_FAILED'],
  ['(a) empty id', { subject: 'User:', relation: 'owner', resource: 'Doc:d2' }, 400, 'VALIDATION_FAILED'],
  ['(a) id with #', { subject: 'User:a#b', relation: 'owner', resource: 'Doc:d2' }, 400, 'VALIDATION_FAILED'],
  ['(a) bad relation name', { subject: 'User:u', relation: 'own er', resource: 'Doc:d2' }, 400, 'VALIDATION_FAILED'],
  ['(a) not strings', { subject: 1, relation: 'owner', resource: 'Doc:d2' }, 400, 'VALIDATION_FAILED'],
  ['(b) unknown resource type', { subject: 'User:u', relation: 'owner', resource: 'Nope:d2' }, 422, 'UNKNOWN_TYPE'],
  ['(b) undeclared relation', { subject: 'User:u', relation: 'editor', resource: 'Doc:d2' }, 422, 'RELATION_NOT_DEFINED'],
  ['(c) subject type not allowed', { subject: 'Doc:x', relation: 'owner', resource: 'Doc:d2' }, 422, 'RELATION_NOT_ALLOWED'],
  ['missing field', { subject: 'User:u', resource: 'Doc:d2' }, 400, 'VALIDATION_FAILED'],
];

describe('tuple validation', () => {
  it.each(tupleCases)('%s', async (_label, body, status, code) => {
    const before = await snapshot();
    const r = await svc.http('POST', '/authorization/relations', { body });
    expect(r.status).toBe(status);
    expect(r.body.code).toBe(code);
    expect(await snapshot()).toBe(before);
  });

  it('/relations/many with one invalid tuple stores none of them', async () => {
    const before = await snapshot();
    const r = await svc.http('POST', '/authorization/relations/many', { body: { subject: 'User:m', relation: 'owner', resources: ['Doc:m1', 'Nope:m2', 'Doc:m3'] } });
    expect(r.status).toBe(422);
    expect(r.body.details[0]).toMatchObject({ index: 1 });
    expect(await snapshot()).toBe(before);
  });

  it('grants: undeclared permission is 422, malformed is 400, revoking a missing grant is 404', async () => {
    const before = await snapshot();
    expect((await svc.http('POST', '/authorization/permissions/grant', { body: { subject: 'User:u', permission: 'fly', resource: 'Doc:d' } })).status).toBe(422);
    expect((await svc.http('POST', '/authorization/permissions/grant', { body: { subject: 'User', permission: 'read', resource: 'Doc:d' } })).status).toBe(400);
    expect((await svc.http('DELETE', '/authorization/permissions/grant', { body: { subject: 'User:u', permission: 'read', resource: 'Doc:d' } })).status).toBe(404);
    expect(await snapshot()).toBe(before);
  });

  it('unknown tuple ids are 404 on get and delete', async () => {
    expect((await svc.http('GET', '/authorization/relations/nope')).status).toBe(404);
    expect((await svc.http('DELETE', '/authorization/relations/nope')).status).toBe(404);
  });
});

describe('query validation', () => {
  it.each([
    ['/authorization/permissions/can?subject=User&permission=read&resource=Doc:d'],
    ['/authorization/permissions/can?subject=User:u&permission=read'],
    ['/authorization/permissions/can?subject=User:u&permission=read&resource=Doc:d&extra=1'],
    ['/authorization/permissions/can?subject=User:u&permission=read&resource=Doc:d&consistency=sometimes'],
    ['/authorization/relations?limit=5000'],
    ['/authorization/permissions/objects?subject=User:u&permission=read&resourceType=Doc&skip=-1'],
  ])('%s -> 400', async (path) => {
    const r = await svc.http('GET', path);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('VALIDATION_FAILED');
  });

  it('an unknown permission or type answers allowed:false; self-access still holds', async () => {
    const q = (s: string, p: string, o: string) => svc.http('GET', `/authorization/permissions/can?subject=${s}&permission=${p}&resource=${o}`);
    expect((await q('User:u', 'fly', 'Doc:d')).body).toEqual({ allowed: false, reason: { code: 'UNKNOWN_PERMISSION', message: 'Doc has no relation or permission fly' } });
    expect((await q('User:u', 'read', 'Nope:x')).body).toMatchObject({ allowed: false, reason: { code: 'UNKNOWN_TYPE' } });
    expect((await q('Nope:x', 'fly', 'Nope:x')).body).toEqual({ allowed: true });
    const ev = await svc.http('GET', '/authorization/permissions/evaluate?subject=User:u&permission=fly&resource=Doc:d');
    expect(ev.body).toMatchObject({ allowed: false, reason: expect.stringContaining('fly') });
  });
});
