// Ids of SpiceDB's length (1,024 bytes, base64-like with = + /) pass everywhere: the engine, authz test, the HTTP replay,
// and a real write, read, check, list, delete and state import on the stack; one byte more is refused.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuthzGraphClient } from '../../src/client/grpc.js';
import { authz } from '../support/cli.js';
import { replay } from '../support/replay.js';
import type { Scenario } from '../support/scenarios.js';
import { startService, type TestService } from '../support/service.js';

/** 1,024 base64 characters (ending in ==, with + and /), and the longest type name. */
const LONG_ID = Buffer.from(Array.from({ length: 766 }, (_, i) => (i * 37 + 251) % 256)).toString('base64');
const LONG_TYPE = `T${'y'.repeat(127)}`;
const LONG_USER = `Person:${LONG_ID}`;
const LONG_DOC = `Doc:${LONG_ID.split('').reverse().join('')}`;

/** After SpiceDB's extended-ids test: long, base64-like and path-like ids through a relation and an arrow. */
const extendedIds: Scenario = {
  name: 'extended object ids',
  source: 'hand-written after SpiceDB extended ids',
  definitions: [
    { name: 'Person', relations: {}, permissions: {} },
    { name: 'Folder', relations: { viewer: ['Person'] }, permissions: { view: ['viewer'] } },
    { name: 'Doc', relations: { viewer: ['Person'], parent: ['Folder'] }, permissions: { view: ['viewer', 'parent->view'] } },
  ],
  tuples: [
    `${LONG_USER}#viewer@${LONG_DOC}`,
    'Person:--=base64YWZzZGZh-ZHNmZHPwn5iK8J+YivC/fmIrwn5iK==#viewer@Folder:a/b/c',
    'Folder:a/b/c#parent@Doc:d+1=',
  ],
  checks: [
    { subject: LONG_USER, action: 'view', resource: LONG_DOC, expect: true },
    { subject: 'Person:--=base64YWZzZGZh-ZHNmZHPwn5iK8J+YivC/fmIrwn5iK==', action: 'view', resource: 'Doc:d+1=', expect: true },
    { subject: LONG_USER, action: 'view', resource: 'Doc:d+1=', expect: false },
  ],
  listObjects: [{ subject: LONG_USER, action: 'view', type: 'Doc', expect: [LONG_DOC.slice('Doc:'.length)] }],
  listSubjects: [{ action: 'view', resource: LONG_DOC, subjectType: 'Person', expect: [LONG_ID] }],
};

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
}, 180_000);
afterAll(async () => {
  await svc?.stop();
});

it('the ids are as long as SpiceDB allows', () => {
  expect(LONG_ID).toHaveLength(1024);
  expect(LONG_ID).toMatch(/[+/].*==$/);
});

it('authz test passes the case offline', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'long-ids-'));
  try {
    const file = join(dir, 'extended-ids.json');
    writeFileSync(file, JSON.stringify(extendedIds));
    const r = await authz(['test', file]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('the HTTP replay passes it, eight replays at once', async () => {
  const results = await Promise.all(Array.from({ length: 8 }, (_, i) => replay(svc, extendedIds, `x${i}_`, 7 + i)));
  for (const stats of results) {
    expect(stats.problems).toEqual([]);
    expect(stats.checks).toBe(3);
  }
}, 300_000);

it('a tuple of two longest objects and the longest names is written, read, checked, listed, exported, deleted and imported', async () => {
  const resource = `${LONG_TYPE}:${LONG_ID}`;
  const subject = `${LONG_TYPE}:${LONG_ID.replace(/=/g, '-')}`;
  const relation = `r${'e'.repeat(127)}`;
  const def = { name: LONG_TYPE, relations: { [relation]: [LONG_TYPE] }, permissions: { see: [relation] } };
  expect((await svc.http('POST', '/authorization/resources', { body: def })).status).toBe(200);
  const tuple = { subject, relation, resource };
  const created = await svc.http('POST', '/authorization/relations', { body: tuple });
  expect(created.status).toBe(201);
  expect(created.body.computedTuple).toBe(`${subject}#${relation}@${resource}`);
  expect((await svc.http('GET', `/authorization/relations/${created.body._id}`)).body).toMatchObject(tuple);
  const listed = await svc.http('GET', `/authorization/relations?resourceType=${LONG_TYPE}&limit=10`);
  expect(listed.body.relations.map((r: { resource: string }) => r.resource)).toEqual([resource]);
  const can = (s: string) =>
    svc.http('GET', `/authorization/permissions/can?subject=${encodeURIComponent(s)}&permission=see&resource=${encodeURIComponent(resource)}&consistency=fully_consistent`);
  expect((await can(subject)).body).toEqual({ allowed: true });
  const objects = await svc.http('GET', `/authorization/permissions/objects?subject=${encodeURIComponent(subject)}&permission=see&resourceType=${LONG_TYPE}`);
  // Self-access lists the subject too: it is of the same type.
  expect(objects.body).toEqual({ objects: [resource, subject].sort(), count: 2 });
  const subjects = await svc.http('GET', `/authorization/permissions/subjects?permission=see&resource=${encodeURIComponent(resource)}&subjectType=${LONG_TYPE}`);
  expect(subjects.body.subjects).toContain(subject);

  const grpc = new AuthzGraphClient({ address: svc.grpc, masterkey: svc.config.MASTER_KEY });
  try {
    expect(await grpc.can({ subject, permission: 'see', resource })).toBe(true);
  } finally {
    grpc.close();
  }

  const exported = await svc.http('GET', '/state/export?tuples=true');
  expect(exported.status).toBe(200);
  const deleted = await svc.http('DELETE', `/authorization/relations/${created.body._id}`);
  expect(deleted.status).toBe(200);
  expect((await can(subject)).body).toEqual({ allowed: false });
  const imported = await svc.http('POST', '/state/import', { body: exported.body });
  expect(imported.status).toBe(200);
  expect(imported.body.relations).toMatchObject({ created: 1 });
  expect(
    (await svc.http('GET',
      `/authorization/permissions/can?subject=${encodeURIComponent(subject)}&permission=see&resource=${
        encodeURIComponent(resource)
      }&consistency=at_least_as_fresh&revision=${imported.body.revision}`)).body,
  ).toEqual({ allowed: true });
});

it('one byte more is refused with 400, and nothing is stored', async () => {
  const before = (await svc.http('GET', '/authorization/relations?limit=1')).body.count;
  const over = await svc.http('POST', '/authorization/relations', { body: { subject: LONG_USER, relation: 'viewer', resource: `Doc:${LONG_ID}x` } });
  expect(over.status).toBe(400);
  expect(over.body).toMatchObject({ code: 'VALIDATION_FAILED' });
  expect((await svc.http('GET', '/authorization/relations?limit=1')).body.count).toBe(before);
  const can = await svc.http('GET', `/authorization/permissions/can?subject=${encodeURIComponent(LONG_USER)}&permission=view&resource=${encodeURIComponent(`Doc:${LONG_ID}x`)}`);
  expect(can.status).toBe(400);
  expect(can.text).toContain('at most 1024 bytes');
});
