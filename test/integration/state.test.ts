// State export and import (GitOps): a whole platform moved to a fresh database through the NDJSON stream, answers
// equal to the pure evaluator's; imports idempotent, even when two run at once; dry runs change nothing; bad input
// changes nothing; prune removes only what the document's own sections leave out.
import { Evaluator } from '../../src/engine/evaluator.js';
import { Model } from '../../src/engine/model.js';
import { randomScenario } from '../support/random.js';
import { expand, parse } from '../support/scenarios.js';
import { startService, type TestService } from '../support/service.js';
import { stateReplies as replies } from '../../src/surfaces/routes/state.js';

const NDJSON = 'application/x-ndjson';
const sc = randomScenario(9, 60, 120);
const defs = sc.definitions!.map(expand);
const model = new Model(defs);
const tuples = sc.tuples!.map(parse).filter((t) => model.isValid(t));
const grants = sc.grants!.map(parse).filter((g) => model.isValidGrant(g));

let svc: TestService;
afterEach(async () => {
  await svc?.stop();
});

/** Definitions, a schema with authorization on, a config override, tuples (in bulk, shuffled) and grants. */
async function provision(s: TestService) {
  for (const d of defs) expect((await s.http('POST', '/authorization/resources', { body: d })).status).toBe(200);
  const schema = await s.http('POST', '/database/schemas', {
    body: { name: 'Note', fields: { title: { type: 'String', required: true } }, serviceOptions: { authorization: { enabled: true } } },
  });
  expect(schema.status).toBe(201);
  expect((await s.http('PATCH', '/config/router', { body: { rateLimits: { default: { windowMs: 2000, max: 70 } } } })).status).toBe(200);
  const bySubjectRelation = new Map<string, string[]>();
  for (const t of [...tuples].reverse()) bySubjectRelation.set(`${t.subject} ${t.relation}`, [...(bySubjectRelation.get(`${t.subject} ${t.relation}`) ?? []), t.resource]);
  await Promise.all([...bySubjectRelation].map(async ([key, resources]) => {
    const [subject, relation] = key.split(' ');
    expect((await s.http('POST', '/authorization/relations/many', { body: { subject, relation, resources } })).status).toBe(200);
  }));
  expect((await s.http('POST', '/authorization/relations', { body: { subject: 'User:u1', relation: 'owner', resource: 'Note:n1' } })).status).toBe(201);
  for (const g of grants) {
    expect((await s.http('POST', '/authorization/permissions/grant', { body: { subject: g.subject, permission: g.relation, resource: g.resource } })).status).toBe(201);
  }
}

const exportOf = async (s: TestService, query = '?tuples=true') => {
  const r = await s.http('GET', `/state/export${query}`);
  expect(r.status).toBe(200);
  return r;
};
/** The document without what differs between instances, tuples and grants as sorted texts. */
const comparable = (doc: any) => ({ // eslint-disable-line @typescript-eslint/no-explicit-any
  resources: doc.resources,
  schemas: doc.schemas,
  config: doc.config,
  relations: doc.relations?.map((t: any) => `${t.subject}#${t.relation}@${t.resource}`).sort(), // eslint-disable-line @typescript-eslint/no-explicit-any
  grants: doc.grants?.map((g: any) => `${g.subject}#${g.permission}@${g.resource}`).sort(), // eslint-disable-line @typescript-eslint/no-explicit-any
});
const ndjsonImport = (s: TestService, text: string, query = '') => s.http('POST', `/state/import${query}`, { raw: text, headers: { ...s.asAdmin, 'content-type': NDJSON } });

it('moves a whole platform to a fresh database through the NDJSON stream; the answers equal the evaluator', async () => {
  svc = await startService();
  await provision(svc);
  const json = (await exportOf(svc)).body;
  expect(json.version).toBe(1);
  expect(json.relations).toHaveLength(tuples.length + 1);
  expect(json.grants).toHaveLength(grants.length);
  expect(json.config).toEqual({ router: { rateLimits: { default: { windowMs: 2000, max: 70 } } } });
  const nd = await exportOf(svc, '?tuples=true&format=ndjson');
  expect(nd.headers.get('content-type')).toContain(NDJSON);
  const lines = nd.text.trim().split('\n');
  expect(lines).toHaveLength(1 + tuples.length + 1 + grants.length + 1);
  expect(JSON.parse(lines.at(-1)!)).toEqual({ end: { relations: tuples.length + 1, grants: grants.length } });
  expect((await exportOf(svc, '?format=ndjson')).text.trim().split('\n')).toHaveLength(1); // no tuples unless asked
  const plain = (await exportOf(svc, '')).body;
  expect(plain.relations).toBeUndefined();
  await svc.stop();

  svc = await startService({ MASTER_KEY: 'another-master-key-of-the-new-instance' });
  // Lines in another order than exported: the header first, then tuples and grants mixed, the end line last.
  const shuffled = [lines[0]!, ...lines.slice(1, -1).reverse(), lines.at(-1)!].join('\n');
  const imported = await ndjsonImport(svc, shuffled);
  expect(imported.status).toBe(200);
  expect(imported.body.relations).toEqual({ created: tuples.length + 1, existing: 0, removed: 0 });
  expect(imported.body.grants).toEqual({ created: grants.length, existing: 0, removed: 0 });
  expect(imported.body.schemas.created).toEqual(['Note']);
  expect(imported.body.config.created).toEqual(['router']);
  expect(comparable((await exportOf(svc)).body)).toEqual(comparable(json));
  expect((await svc.http('GET', '/config/router')).body.rateLimits.default).toEqual({ windowMs: 2000, max: 70 });

  const ev = new Evaluator(model, tuples, grants);
  const at = `consistency=at_least_as_fresh&revision=${imported.body.revision}`;
  for (const c of sc.checks!) {
    const r = await svc.http('GET',
      `/authorization/permissions/can?subject=${encodeURIComponent(c.subject)}&permission=${c.action}&resource=${encodeURIComponent(c.resource)}&${at}`);
    if (r.status === 422) continue; // an action the type does not declare
    expect({ c, allowed: r.body.allowed }).toEqual({ c, allowed: ev.can(c.subject, c.action, c.resource) });
  }
  const note = await svc.http('GET', `/authorization/permissions/can?subject=User:u1&permission=delete&resource=Note:n1&${at}`);
  expect(note.body.allowed).toBe(true);
}, 180_000);

it('is idempotent: a second import, and two at once, change nothing more; a dry run reports and changes nothing', async () => {
  svc = await startService();
  await provision(svc);
  const doc = (await exportOf(svc)).body;
  const before = (await svc.http('GET', '/authorization/indexer/status')).body.revision;
  const [a, b] = await Promise.all([svc.http('POST', '/state/import', { body: doc }), svc.http('POST', '/state/import', { body: doc })]);
  for (const r of [a, b]) {
    expect(r.status).toBe(200);
    expect(r.body.relations).toEqual({ created: 0, existing: tuples.length + 1, removed: 0 });
    expect(r.body.resources.created.concat(r.body.resources.updated)).toEqual([]);
    expect(r.body.config.updated).toEqual([]);
  }
  expect((await svc.http('GET', '/authorization/indexer/status')).body.revision).toBe(before);

  const changed = structuredClone(doc);
  changed.resources.push({ name: 'Memo', relations: { viewer: ['User'] }, permissions: { read: ['viewer'] } });
  changed.config.router.rateLimits.default.max = 5;
  changed.relations.push({ subject: 'User:new', relation: 'viewer', resource: 'Memo:m1' });
  const dry = await svc.http('POST', '/state/import?dryRun=true', { body: changed });
  expect(dry.status).toBe(200);
  expect(dry.body).toMatchObject({ dryRun: true, resources: { created: ['Memo'] }, config: { updated: ['router'] }, relations: { created: 1, existing: tuples.length + 1 } });
  expect(comparable((await exportOf(svc)).body)).toEqual(comparable(doc));
  expect((await svc.http('GET', '/authorization/resources/Memo')).status).toBe(404);

  const real = await svc.http('POST', '/state/import', { body: changed });
  expect(real.body).toMatchObject({ dryRun: false, resources: { created: ['Memo'] }, relations: { created: 1 } });
  const can = await svc.http('GET',
    `/authorization/permissions/can?subject=User:new&permission=read&resource=Memo:m1&consistency=at_least_as_fresh&revision=${real.body.revision}`);
  expect(can.body.allowed).toBe(true);
  expect((await svc.http('GET', '/config/router')).body.rateLimits.default.max).toBe(5);
}, 180_000);

it('refuses bad documents whole, with details (400 malformed, 422 what the model rejects), and changes nothing', async () => {
  svc = await startService();
  await provision(svc);
  const doc = (await exportOf(svc)).body;
  const header = JSON.stringify({ ...doc, relations: undefined, grants: undefined, carries: undefined });
  type Reply = { status: number; body: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
  const cases: Array<{ send: () => Promise<Reply>; status: number; code: string; detail?: unknown }> = [
    { send: () => svc.http('POST', '/state/import', { body: { ...doc, version: 2 } }), status: 400, code: 'VALIDATION_FAILED', detail: { path: 'body.version' } },
    {
      send: () =>
        svc.http('POST', '/state/import', { body: { ...doc, resources: [...doc.resources, { name: 'Bad', relations: { r: ['User'] }, permissions: { p: ['missing'] } }] } }),
      status: 422,
      code: 'INVALID_DEFINITION',
      detail: { path: expect.stringMatching(/^resources\.\d+\.permissions/) },
    },
    { send: () => svc.http('POST', '/state/import', { body: { ...doc, config: { nothing: {} } } }), status: 400, code: 'VALIDATION_FAILED', detail: { path: 'config.nothing' } },
    { send: () => svc.http('POST', '/state/import', { body: { ...doc, config: { router: { rateLimits: { enabled: 'yes' } } } } }), status: 400, code: 'VALIDATION_FAILED',
      detail: { path: 'config.router.rateLimits.enabled' } },
    { send: () => svc.http('POST', '/state/import', { body: { ...doc, relations: [...doc.relations, { subject: 'User:x', relation: 'nope', resource: 'Doc:doc0' }] } }),
      status: 422, code: 'RELATION_NOT_DEFINED', detail: { path: `relations.${doc.relations.length}`, code: 'RELATION_NOT_DEFINED' } },
    { send: () => svc.http('POST', '/state/import', { raw: '{"version":1,' }), status: 400, code: 'BAD_REQUEST' },
    // Mixed: a line that is not JSON and one the model rejects.
    {
      send: () =>
        ndjsonImport(svc, `${header}\n{"subject":"User:x","relation":"owner","resource":"Team:t9"}\nnot json\n{"subject":"User:x","relation":"nope","resource":"Doc:doc0"}\n`),
      status: 400,
      code: 'VALIDATION_FAILED',
      detail: { line: 3 },
    },
    { send: () => ndjsonImport(svc, `${header}\n{"subject":"User:x","relation":"owner","resource":"Team:t9"}\n{"subject":"User:x","relation":"nope","resource":"Doc:doc0"}\n`),
      status: 422, code: 'RELATION_NOT_DEFINED', detail: { line: 3 } },
    // Tuples carried in the header line are checked like the others.
    { send: () => ndjsonImport(svc, `${JSON.stringify({ ...JSON.parse(header), relations: [{ subject: 'User:x', relation: 'nope', resource: 'Doc:doc0' }] })}\n`), status: 422,
      code: 'RELATION_NOT_DEFINED', detail: { path: 'relations.0' } },
    { send: () => ndjsonImport(svc, ''), status: 400, code: 'VALIDATION_FAILED', detail: { line: 1 } },
    { send: () => ndjsonImport(svc, '{"version":1,"extra":true}\n'), status: 400, code: 'VALIDATION_FAILED', detail: { line: 1 } },
  ];
  for (const [i, c] of cases.entries()) {
    const r = await c.send();
    expect({ i, status: r.status, code: r.body.code }).toEqual({ i, status: c.status, code: c.code });
    if (c.detail) expect(r.body.details).toContainEqual(expect.objectContaining(c.detail));
  }
  // A line with an undefined relation after valid ones: nothing before it was stored either.
  expect((await svc.http('GET', '/authorization/relations?search=User:x')).body.count).toBe(0);
  expect(comparable((await exportOf(svc)).body)).toEqual(comparable(doc));
}, 180_000);

it('prunes only the sections a document carries: a header without tuples, or tuples without grants, leave the rest', async () => {
  svc = await startService();
  await provision(svc);
  const before = comparable((await exportOf(svc)).body);
  const headerOnly = (await exportOf(svc, '?format=ndjson')).text;
  expect(headerOnly.trim().split('\n')).toHaveLength(1);
  const r1 = await ndjsonImport(svc, headerOnly, '?prune=true');
  expect(r1.status).toBe(200);
  expect(r1.body.relations).toEqual({ created: 0, existing: 0, removed: 0 });
  expect(r1.body.notes.join(' ')).toMatch(/tuples are pruned only when/);
  const doc = (await exportOf(svc)).body;
  const { grants: _g, ...withoutGrants } = doc;
  const r2 = await svc.http('POST', '/state/import?prune=true', { body: withoutGrants });
  expect(r2.status).toBe(200);
  expect(r2.body.grants).toEqual({ created: 0, existing: 0, removed: 0 });
  // The Note schema is not in this document's resources' way: its registered definition stays.
  const { schemas: _s, ...withoutSchemas } = doc;
  const r3 = await svc.http('POST', '/state/import?prune=true', { body: { ...withoutSchemas, resources: doc.resources.filter((d: { name: string }) => d.name !== 'Note') } });
  expect(r3.status).toBe(200);
  expect(r3.body.resources.removed).toEqual([]);
  expect(comparable((await exportOf(svc)).body)).toEqual(before);
}, 180_000);

it('takes ids in any script, even when a character is split across chunks of the upload', async () => {
  svc = await startService();
  expect((await svc.http('POST', '/authorization/resources', { body: { name: 'Doc', relations: { viewer: ['User'] }, permissions: { read: ['viewer'] } } })).status).toBe(200);
  const header = (await exportOf(svc, '?format=ndjson')).text.trim();
  const ids = ['zoë', 'Ελένη', '日本語', 'emoji😀'];
  const text = `${header}\n${ids.map((id) => JSON.stringify({ subject: `User:${id}`, relation: 'viewer', resource: `Doc:${id}` })).join('\n')}\n`;
  const bytes = Buffer.from(text, 'utf8');
  // Chunks of 7 bytes: most multi-byte characters straddle two of them.
  const body = new ReadableStream({ start(c) {
    for (let i = 0; i < bytes.length; i += 7) c.enqueue(bytes.subarray(i, i + 7));
    c.close();
  } });
  const res = await fetch(`${svc.admin}/state/import`, { method: 'POST', headers: { ...svc.asAdmin, 'content-type': NDJSON }, body, duplex: 'half' } as RequestInit);
  const report = await res.json() as { relations: { created: number }; revision: number };
  expect(res.status).toBe(200);
  expect(report.relations.created).toBe(ids.length);
  const exported = comparable((await exportOf(svc)).body).relations;
  expect(exported).toEqual(ids.map((id) => `User:${id}#viewer@Doc:${id}`).sort());
  const can = await svc.http('GET',
    `/authorization/permissions/can?subject=${encodeURIComponent('User:日本語')}&permission=read&resource=${
      encodeURIComponent('Doc:日本語')
    }&consistency=at_least_as_fresh&revision=${report.revision}`);
  expect(can.body.allowed).toBe(true);
}, 120_000);

it('serializes imports: two first-time imports at once both land once; exports omit tuples the definitions no longer allow', async () => {
  svc = await startService();
  await provision(svc);
  const doc = (await exportOf(svc)).body;
  expect(replies.state.safeParse(doc).success).toBe(true); // streamed, so CHECK_REPLIES cannot see it
  await svc.stop();
  svc = await startService();
  const [a, b] = await Promise.all([svc.http('POST', '/state/import', { body: doc }), svc.http('POST', '/state/import', { body: doc })]);
  expect([a.status, b.status]).toEqual([200, 200]);
  expect(a.body.relations.created + b.body.relations.created).toBe(doc.relations.length);
  expect(a.body.schemas.created.length + b.body.schemas.created.length).toBe(1);
  expect(comparable((await exportOf(svc)).body)).toEqual(comparable(doc));
  // Each definition was written once: version 0 (a repeated write would have made it 1).
  for (const d of defs) expect((await svc.http('GET', `/authorization/resources/${d.name}`)).body.version).toBe(0);

  // Narrow a definition: the tuples it no longer allows stay stored but are not exported, so the export imports again.
  const doc0 = defs.find((d) => Object.keys(d.relations).length > 1)!;
  const [dropped, ...keptRelations] = Object.keys(doc0.relations);
  const narrowed = { relations: Object.fromEntries(keptRelations.map((r) => [r, doc0.relations[r]!])), permissions: {} };
  expect((await svc.http('PATCH', `/authorization/resources/${doc0.name}`, { body: narrowed })).status).toBe(200);
  const after = (await exportOf(svc)).body;
  expect(after.relations.some((t: { relation: string; resource: string }) => t.relation === dropped && t.resource.startsWith(`${doc0.name}:`))).toBe(false);
  const again = await svc.http('POST', '/state/import?dryRun=true', { body: after });
  expect(again.status).toBe(200);
}, 180_000);

it('deletes nothing without prune; with prune removes what the sections it carries leave out, and only that', async () => {
  svc = await startService();
  await provision(svc);
  const doc = (await exportOf(svc)).body;
  expect((await svc.http('POST', '/authorization/resources', { body: { name: 'Extra', relations: { viewer: ['User'] }, permissions: {} } })).status).toBe(200);
  expect((await svc.http('POST', '/authorization/relations', { body: { subject: 'User:extra', relation: 'viewer', resource: 'Extra:e1' } })).status).toBe(201);

  const kept = await svc.http('POST', '/state/import', { body: doc });
  expect(kept.body.resources.removed).toEqual([]);
  expect((await svc.http('GET', '/authorization/resources/Extra')).status).toBe(200);

  // Without tuples in the document, prune leaves tuples alone and says so.
  const { relations: _r, grants: _g, ...noTuples } = doc;
  const noTuplePrune = await svc.http('POST', '/state/import?prune=true&dryRun=true', { body: noTuples });
  expect(noTuplePrune.body.resources.removed).toEqual(['Extra']);
  expect(noTuplePrune.body.relations).toBeUndefined();
  expect(noTuplePrune.body.notes.join(' ')).toMatch(/tuples/);

  const dropped = doc.relations.slice(0, 5);
  const pruned = await svc.http('POST', '/state/import?prune=true', { body: { ...doc, relations: doc.relations.slice(5) } });
  expect(pruned.status).toBe(200);
  expect(pruned.body.resources.removed).toEqual(['Extra']);
  // The five; Extra's tuple stays stored (as after a DELETE of its definition): no export without Extra could carry it.
  expect(pruned.body.relations).toEqual({ created: 0, existing: doc.relations.length - 5, removed: 5 });
  expect((await svc.http('GET', '/authorization/resources/Extra')).status).toBe(404);
  const left = comparable((await exportOf(svc)).body);
  expect(left.relations).toEqual(comparable({ relations: doc.relations.slice(5) }).relations);
  expect(left.relations).not.toContain(`${dropped[0].subject}#${dropped[0].relation}@${dropped[0].resource}`);
  expect(left.grants).toEqual(comparable(doc).grants);
}, 180_000);

it('refuses a cut-short NDJSON file (its end line missing or miscounted) before any prune, and answers 409 while another import runs', async () => {
  svc = await startService();
  await provision(svc);
  const full = (await exportOf(svc, '?tuples=true&format=ndjson')).text.trim().split('\n');
  const before = comparable((await exportOf(svc)).body);
  for (const cut of [full.slice(0, -1), full.slice(0, 10), [...full.slice(0, 10), full.at(-1)!]]) {
    const r = await ndjsonImport(svc, `${cut.join('\n')}\n`, '?prune=true');
    expect([r.status, r.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(r.body.message).toMatch(/incomplete/);
  }
  expect(comparable((await exportOf(svc)).body)).toEqual(before);

  // Another import holds the lease: after 10 s of waiting, 409 BUSY, and nothing changed. Another process takes it.
  const peer = await svc.peer();
  const held = [peer.lease('state-import', 30_000), peer.lease('config', 30_000)];
  try {
    expect(await held[0]!.tryAcquire()).toBe(true);
    const started = Date.now();
    const busy = await ndjsonImport(svc, `${full.join('\n')}\n`, '?prune=true');
    expect([busy.status, busy.body.code]).toEqual([409, 'BUSY']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_000);
    expect(await held[1]!.tryAcquire()).toBe(true);
    const config = await svc.http('PATCH', '/config/router', { body: { rateLimits: { enabled: false } } });
    expect([config.status, config.body.code]).toEqual([409, 'BUSY']);
  } finally {
    for (const lease of held) await lease.release();
    await peer.close();
  }
  expect(comparable((await exportOf(svc)).body)).toEqual(before);
  const dry = await ndjsonImport(svc, `${full.join('\n')}\n`, '?prune=true&dryRun=true');
  expect(dry.body.relations).toEqual({ created: 0, existing: tuples.length + 1, removed: 0 });
}, 180_000);
