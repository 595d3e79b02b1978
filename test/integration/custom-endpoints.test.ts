// Custom endpoints: operators define them on the admin surface; clients call them, authorized through the index as documents are.
// (The 1,000-definition cap, filled in MongoDB itself: custom-endpoints-cap.test.ts, on the stack.)
import fc from 'fast-check';
import { clientCall } from '../support/client-account.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
const MANY = { windowMs: 1000, max: 100_000 };
const LIMITS = JSON.stringify({ routes: {
  'POST /authentication/local/new': { windowMs: 60_000, max: 1000 },
  'GET /database/function/:name': MANY,
  'POST /database/function/:name': MANY,
  'GET /database/function/:name/:value': MANY,
  'POST /database/function/:name/:value': MANY,
} });
beforeAll(async () => {
  svc = await startService({ ROUTER_RATE_LIMITS: LIMITS });
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

const client = (method: string, path: string, token?: string, body?: unknown) => clientCall(svc, method, path, token, body);
const define = (body: unknown) => svc.http('POST', '/database/customEndpoints', { body });

async function account(email: string) {
  expect((await client('POST', '/authentication/local/new', undefined, { email, password: 'correct horse' })).status).toBe(201);
  const r = await client('POST', '/authentication/local', undefined, { email, password: 'correct horse' });
  return { id: r.body.userId as string, token: r.body.accessToken as string };
}
const titles = (r: { body: { documents: Array<{ title: string }> } }) => r.body.documents.map((d) => d.title).sort();

type Who = { id: string; token: string };
let alice: Who;
let bob: Who;
let carol: Who;
let t1: string;

beforeAll(async () => {
  const task = { title: { type: 'String', required: true }, status: 'String', priority: 'Number', owner: 'String', due: 'Date' };
  expect((await svc.http('POST', '/database/schemas', { body: { name: 'Task', fields: task, serviceOptions: { authorization: { enabled: true } } } })).status).toBe(201);
  expect((await svc.http('POST', '/database/schemas', { body: { name: 'Notice', fields: { title: 'String', n: 'Number' } } })).status).toBe(201);
  [alice, bob, carol] = await Promise.all([account('alice@ce.example'), account('bob@ce.example'), account('carol@ce.example')]);
  t1 = (await client('POST', '/database/Task', alice.token, { title: 'one', status: 'open', priority: 1 })).body._id;
  expect((await client('POST', '/database/Task', alice.token, { title: 'two', status: 'open', priority: 2 })).status).toBe(201);
  expect((await client('POST', '/database/Task', bob.token, { title: 'bobs', status: 'open', priority: 3 })).status).toBe(201);
  expect((await client('POST', '/database/Task', carol.token, { title: 'closed', status: 'done', priority: 9 })).status).toBe(201);
  // bob may read alice's first task, not change it.
  expect((await svc.http('POST', '/authorization/relations', { body: { subject: `User:${bob.id}`, relation: 'reader', resource: `Task:${t1}` } })).status).toBe(201);
  for (const n of [1, 5, 10]) expect((await client('POST', '/database/Notice', alice.token, { title: `notice ${n}`, n })).status).toBe(201);
}, 60_000);

describe('definitions (admin)', () => {
  it('creates, lists, gets, patches and deletes, on REST and admin GraphQL, with MCP tools from the registry', async () => {
    const made = await define({
      name: 'openTasks',
      operation: 'find',
      schema: 'Task',
      description: 'tasks by status',
      inputs: { status: { type: 'String', required: true, from: 'query' } },
      filter: { status: { input: 'status' } },
      sort: '-priority',
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: 'openTasks', operation: 'find', schema: 'Task', auth: 'token', sort: '-priority', filter: { status: { input: 'status' } } });
    expect((await define({ name: 'openTasks', operation: 'find', schema: 'Task' })).status).toBe(409);
    const listed = await svc.http('GET', '/database/customEndpoints');
    expect(listed.status).toBe(200);
    expect(listed.body.count).toBe(1);
    expect(listed.body.endpoints[0].name).toBe('openTasks');
    const patched = await svc.http('PATCH', '/database/customEndpoints/openTasks', { body: { description: null, sort: 'priority' } });
    expect(patched.status).toBe(200);
    expect(patched.body.description).toBeUndefined();
    expect((await svc.http('GET', '/database/customEndpoints/openTasks')).body.sort).toBe('priority');
    expect((await svc.http('GET', '/database/customEndpoints/nothing')).status).toBe(404);
    expect((await svc.http('PATCH', '/database/customEndpoints/openTasks', { body: { sort: 'nope' } })).status).toBe(400);
    const gone = await define({ name: 'scratch', operation: 'find', schema: 'Notice' });
    expect(gone.status).toBe(201);
    expect((await svc.http('DELETE', '/database/customEndpoints/scratch')).body.deleted.name).toBe('scratch');
    expect((await svc.http('DELETE', '/database/customEndpoints/scratch')).status).toBe(404);
    const ids = svc.app.registry.of('admin').map((r) => r.id);
    expect(ids).toEqual(
      expect.arrayContaining(['post_database_customendpoints', 'get_database_customendpoints', 'get_database_customendpoints_name', 'patch_database_customendpoints_name',
        'delete_database_customendpoints_name']),
    );
    expect((await client('GET', '/database/customEndpoints', alice.token)).status).toBe(404);
    // Admin GraphQL has the same routes as fields.
    const gql = async (query: string) => (await svc.http('POST', '/graphql', { body: { query } })).body;
    expect((await gql('mutation { post_database_customendpoints(name: "viaGraphql", operation: "find", schema: "Notice") }')).data.post_database_customendpoints.name).toBe(
      'viaGraphql',
    );
    expect((await gql('query { get_database_customendpoints_name(name: "viaGraphql") }')).data.get_database_customendpoints_name.schema).toBe('Notice');
    const refused = await gql('mutation { post_database_customendpoints(name: "viaGraphql2", operation: "find", schema: "Nothing") }');
    expect(refused.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect((await gql('mutation { delete_database_customendpoints_name(name: "viaGraphql") }')).data.delete_database_customendpoints_name.deleted.name).toBe('viaGraphql');
  });

  it('refuses a definition naming an unknown schema, field or input, with the path in details', async () => {
    const cases: Array<[unknown, string]> = [
      [{ name: 'a1', operation: 'find', schema: 'Nothing' }, 'schema'],
      [{ name: 'a2', operation: 'find', schema: 'Task', filter: { colour: 'red' } }, 'filter.colour'],
      [{ name: 'a3', operation: 'find', schema: 'Task', filter: { status: { input: 'missing' } } }, 'filter.status'],
      [{ name: 'a4', operation: 'find', schema: 'Task', inputs: { unused: { type: 'String', from: 'query' } } }, 'inputs.unused'],
      [{ name: 'a5', operation: 'find', schema: 'Task', inputs: { p: { type: 'String', from: 'query' } }, filter: { priority: { input: 'p' } } }, 'filter.priority'],
      [{ name: 'a6', operation: 'create', schema: 'Task', assign: { status: 'open' } }, 'assign.title'],
      [{ name: 'a7', operation: 'update', schema: 'Task', assign: { title: 'x' } }, 'filter'],
      [{ name: 'a8', operation: 'find', schema: 'Task', auth: 'none' }, 'auth'],
      [{ name: 'a9', operation: 'create', schema: 'Notice', auth: 'none', assign: { title: 'x' } }, 'auth'],
      [{ name: 'b1', operation: 'update', schema: 'Task', inputs: { id: { type: 'ObjectId', from: 'query' } }, filter: { _id: { input: 'id' } }, assign: { title: 'x' } },
        'filter._id'],
      [{ name: 'b2', operation: 'find', schema: 'Task', filter: { toString: 'x' } }, 'filter.toString'],
      [{ name: 'b3', operation: 'find', schema: 'Task', filter: { status: { $ne: 'x' } } }, 'filter.status'],
      [{ name: 'b6', operation: 'find', schema: 'Task', filter: { status: { like: 'x' } } }, 'filter.status'],
      [{ name: 'b7', operation: 'find', schema: 'Task', filter: { owner: { gt: { caller: 'id' } } }, inputs: { x: { type: 'String', from: 'path' } } }, 'inputs.x.required'],
      [{ name: 'b4', operation: 'find', schema: 'Task', sort: 'colour' }, 'sort'],
      [{ name: 'b5', operation: 'update', schema: 'Task', filter: { status: 'open' }, assign: { nothing: 1 } }, 'assign.nothing'],
    ];
    for (const [body, path] of cases) {
      const r = await define(body);
      expect([r.status, r.body.code, (body as { name: string }).name]).toEqual([400, 'VALIDATION_FAILED', (body as { name: string }).name]);
      // The pipeline names the whole path of what it refuses itself (a `$` key: body.filter.status.$ne).
      expect([path, r.body.details.some((d: { path: string }) => d.path.includes(path))]).toEqual([path, true]);
    }
    expect((await define({ name: 'bad', operation: 'erase', schema: 'Task' })).status).toBe(400);
    expect((await define({ name: 'bad', operation: 'find', schema: 'Task', extra: 1 })).status).toBe(400);
    expect((await svc.http('GET', '/database/customEndpoints')).body.count).toBe(1);
  });
});

describe('calls (client): finds and tokens', () => {
  beforeAll(async () => {
    for (const body of [
      { name: 'tasksByStatus', operation: 'find', schema: 'Task', inputs: { status: { type: 'String', required: true, from: 'query' } }, filter: { status: { input: 'status' } },
        sort: '-priority' },
      { name: 'myTasks', operation: 'find', schema: 'Task', filter: { owner: { caller: 'id' } }, paged: false },
      {
        name: 'newTask',
        operation: 'create',
        schema: 'Task',
        inputs: { title: { type: 'String', required: true, from: 'body' }, priority: { type: 'Number', from: 'body' }, due: { type: 'Date', from: 'body' } },
        assign: { title: { input: 'title' }, priority: { input: 'priority' }, due: { input: 'due' }, status: 'open', owner: { caller: 'id' } },
      },
      {
        name: 'renameTask',
        operation: 'update',
        schema: 'Task',
        inputs: { id: { type: 'ObjectId', required: true, from: 'path' }, title: { type: 'String', required: true, from: 'body' } },
        filter: { _id: { input: 'id' } },
        assign: { title: { input: 'title' } },
      },
      { name: 'dropTask', operation: 'delete', schema: 'Task', inputs: { id: { type: 'ObjectId', required: true, from: 'query' } }, filter: { _id: { input: 'id' } } },
      { name: 'notices', operation: 'find', schema: 'Notice', auth: 'none', inputs: { min: { type: 'Number', from: 'query' } }, filter: { n: { gte: { input: 'min' } } },
        sort: 'n' },
    ]) expect([body.name, (await define(body)).status]).toEqual([body.name, 201]);
  });

  it('a find returns only the documents the caller may read', async () => {
    expect(titles(await client('GET', '/database/function/tasksByStatus?status=open', alice.token))).toEqual(['one', 'two']);
    expect(titles(await client('GET', '/database/function/tasksByStatus?status=open', bob.token))).toEqual(['bobs', 'one']);
    expect((await client('GET', '/database/function/tasksByStatus?status=open', carol.token)).body).toEqual({ documents: [], count: 0 });
    const paged = await client('GET', '/database/function/tasksByStatus?status=open&limit=1', alice.token);
    expect(paged.body.documents.map((d: { title: string }) => d.title)).toEqual(['two']);
    expect(paged.body.count).toBe(2);
    // POST runs a find too, with the same query inputs.
    expect(titles(await client('POST', '/database/function/tasksByStatus?status=done', carol.token, {}))).toEqual(['closed']);
  });

  it('needs a token unless the definition is an open find on a schema without authorization', async () => {
    for (const [method, path] of [['GET', '/database/function/tasksByStatus?status=open'], ['GET', '/database/function/myTasks'], ['POST', '/database/function/newTask'], ['POST',
      `/database/function/renameTask/${t1}`], ['POST', `/database/function/dropTask?id=${t1}`]] as const) {
      const r = await client(method, path, undefined, method === 'POST' ? { title: 'x' } : undefined);
      expect([path, r.status, r.body.code]).toEqual([path, 401, 'UNAUTHENTICATED']);
    }
    const open = await client('GET', '/database/function/notices?min=5');
    expect(open.status).toBe(200);
    expect(open.body.documents.map((d: { n: number }) => d.n)).toEqual([5, 10]);
    expect((await client('GET', '/database/function/notices')).body.count).toBe(3);
    expect((await client('GET', '/database/function/notices?min=5', alice.token)).body.count).toBe(2);
    // A token that is sent is checked, even where none is needed.
    expect((await client('GET', '/database/function/notices', 'not-a-token')).status).toBe(401);
    expect((await client('GET', '/database/function/nothing')).status).toBe(404);
    expect((await client('GET', '/database/function/nothing', alice.token)).body.code).toBe('FUNCTION_NOT_FOUND');
  });
});

describe('calls (client): creates, updates and deletes', () => {
  it('a create makes the caller owner, and fills fields from inputs, the caller and constants', async () => {
    const made = await client('POST', '/database/function/newTask', carol.token, { title: 'via endpoint', priority: 4, due: '2030-01-02' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ title: 'via endpoint', priority: 4, status: 'open', owner: carol.id, due: '2030-01-02T00:00:00.000Z' });
    expect((await client('GET', `/database/Task/${made.body._id}`, carol.token)).status).toBe(200);
    expect((await client('GET', `/database/Task/${made.body._id}`, alice.token)).status).toBe(404);
    expect(titles(await client('GET', '/database/function/myTasks', carol.token))).toEqual(['via endpoint']);
  });

  it('bad inputs are a 400 naming the input', async () => {
    const cases: Array<[string, string, unknown, string]> = [
      ['GET', '/database/function/tasksByStatus', undefined, 'query.status'],
      ['GET', '/database/function/tasksByStatus?status=open&bogus=1', undefined, 'query.bogus'],
      ['GET', '/database/function/tasksByStatus?status=open&limit=0', undefined, 'query.limit'],
      ['POST', '/database/function/newTask', { title: 'x', priority: 'high' }, 'body.priority'],
      ['POST', '/database/function/newTask', { priority: 1 }, 'body.title'],
      ['POST', '/database/function/newTask', { title: 'x', due: 'someday' }, 'body.due'],
      ['POST', '/database/function/newTask', { title: 'x', owner: 'me' }, 'body.owner'],
      ['POST', '/database/function/renameTask', { title: 'x' }, 'path.id'],
      ['GET', '/database/function/notices?min=lots', undefined, 'query.min'],
      ['GET', '/database/function/newTask', undefined, 'POST'],
    ];
    for (const [method, path, body, named] of cases) {
      const r = await client(method, path, alice.token, body);
      expect([path, r.status, r.body.code]).toEqual([path, 400, 'VALIDATION_FAILED']);
      expect(r.body.message).toContain(named);
    }
  });

  it('an update needs edit on each document: 403 and nothing changed for a reader, 404 for one it cannot read', async () => {
    const asBob = await client('POST', `/database/function/renameTask/${t1}`, bob.token, { title: 'hijacked' });
    expect([asBob.status, asBob.body.code]).toEqual([403, 'FORBIDDEN']);
    const asCarol = await client('POST', `/database/function/renameTask/${t1}`, carol.token, { title: 'hijacked' });
    expect([asCarol.status, asCarol.body.code]).toEqual([404, 'NOT_FOUND']);
    expect((await client('GET', `/database/Task/${t1}`, alice.token)).body.title).toBe('one');
    // All or nothing: bob may edit his own open task but only read alice's, so neither changes.
    expect(
      (await define({ name: 'closeAll', operation: 'update', schema: 'Task', inputs: { status: { type: 'String', required: true, from: 'query' } },
        filter: { status: { input: 'status' } }, assign: { status: 'closed' } })).status,
    ).toBe(201);
    expect((await client('POST', '/database/function/closeAll?status=open', bob.token, {})).status).toBe(403);
    expect(titles(await client('GET', '/database/function/tasksByStatus?status=open', bob.token))).toEqual(['bobs', 'one']);
    const ok = await client('POST', `/database/function/renameTask/${t1}`, alice.token, { title: 'one renamed' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ count: 1, documents: [{ _id: t1, title: 'one renamed' }] });
    expect((await client('GET', `/database/Task/${t1}`, bob.token)).body.title).toBe('one renamed');
  });

  it('a delete needs delete: a reader gets 403, an outsider 404, the owner removes the document and its tuples', async () => {
    expect((await client('POST', `/database/function/dropTask?id=${t1}`, bob.token, {})).status).toBe(403);
    expect((await client('POST', `/database/function/dropTask?id=${t1}`, carol.token, {})).status).toBe(404);
    expect((await client('GET', `/database/Task/${t1}`, alice.token)).status).toBe(200);
    const gone = await client('POST', `/database/function/dropTask?id=${t1}`, alice.token, {});
    expect(gone.status).toBe(200);
    expect(gone.body.documents.map((d: { _id: string }) => d._id)).toEqual([t1]);
    expect((await client('GET', `/database/Task/${t1}`, alice.token)).status).toBe(404);
    expect((await svc.http('GET', `/authorization/relations?search=Task:${t1}`)).body.count).toBe(0);
  });
});

describe('calls (client): operators, scopes and unique fields', () => {
  it('$-operator strings in inputs are plain values, never operators', async () => {
    expect((await client('GET', `/database/function/tasksByStatus?status=${encodeURIComponent('{"$ne":null}')}`, alice.token)).body.count).toBe(0);
    expect((await client('GET', '/database/function/tasksByStatus?status=$ne', alice.token)).body.count).toBe(0);
    // An object where a value goes: refused, never passed on as a query.
    expect((await client('GET', '/database/function/tasksByStatus?status[$ne]=x', alice.token)).status).toBe(400);
    expect((await client('POST', '/database/function/newTask', alice.token, { title: { $gt: '' } })).status).toBe(400);
    expect((await client('POST', '/database/function/newTask', alice.token, { title: { gt: '' } })).status).toBe(400);
    const literal = await client('POST', '/database/function/newTask', alice.token, { title: '$where' });
    expect(literal.status).toBe(201);
    expect(literal.body.title).toBe('$where');
    expect((await client('POST', `/database/function/renameTask/${encodeURIComponent('{"$gt":""}')}`, alice.token, { title: 'all' })).status).toBe(404);
    expect(titles(await client('GET', '/database/function/tasksByStatus?status=open', alice.token))).toEqual(['$where', 'two']);
  });

  it('a create for a scope makes the team owner, and needs edit on the team', async () => {
    const team = (await client('POST', '/authentication/teams', alice.token, { name: 'Crew' })).body._id as string;
    expect(
      (await define({ name: 'teamTask', operation: 'create', schema: 'Task',
        inputs: { title: { type: 'String', required: true, from: 'body' }, team: { type: 'String', required: true, from: 'query' } }, assign: { title: { input: 'title' } },
        scope: { input: 'team' } })).status,
    ).toBe(201);
    const made = await client('POST', `/database/function/teamTask?team=Team:${team}`, alice.token, { title: 'for the crew' });
    expect(made.status).toBe(201);
    const tuples = await svc.http('GET', `/authorization/relations?search=Task:${made.body._id}`);
    expect(tuples.body.relations.map((r: { computedTuple: string }) => r.computedTuple)).toEqual([`Team:${team}#owner@Task:${made.body._id}`]);
    expect((await client('POST', `/database/function/teamTask?team=Team:${team}`, carol.token, { title: 'x' })).status).toBe(403);
    // A constant scope: every call creates for that team.
    expect((await define({ name: 'crewTask', operation: 'create', schema: 'Task', assign: { title: 'crew job' }, scope: `Team:${team}` })).status).toBe(201);
    const fixed = await client('POST', '/database/function/crewTask', alice.token, {});
    expect(fixed.status).toBe(201);
    expect((await svc.http('GET', `/authorization/relations?search=Task:${fixed.body._id}`)).body.relations[0].subject).toBe(`Team:${team}`);
    const bad = await client('POST', '/database/function/teamTask?team=User:x', alice.token, { title: 'x' });
    expect([bad.status, bad.body.message]).toEqual([400, expect.stringContaining('query.team')]);
  });

  it('an update giving a unique field to several documents is refused before any changes', async () => {
    expect((await svc.http('POST', '/database/schemas', { body: { name: 'Badge', fields: { code: { type: 'String', unique: true }, group: 'String' } } })).status).toBe(201);
    for (const code of ['a', 'b']) expect((await client('POST', '/database/Badge', alice.token, { code, group: 'g' })).status).toBe(201);
    expect(
      (await define({ name: 'recode', operation: 'update', schema: 'Badge',
        inputs: { group: { type: 'String', required: true, from: 'query' }, code: { type: 'String', required: true, from: 'body' } }, filter: { group: { input: 'group' } },
        assign: { code: { input: 'code' } } })).status,
    ).toBe(201);
    const r = await client('POST', '/database/function/recode?group=g', alice.token, { code: 'z' });
    expect([r.status, r.body.code]).toEqual([409, 'ALREADY_EXISTS']);
    expect((await client('GET', '/database/Badge?sort=code', alice.token)).body.documents.map((d: { code: string }) => d.code)).toEqual(['a', 'b']);
  });
});

describe('calls (client): stale definitions and generated inputs', () => {
  it('a definition its schema no longer fits answers 422 at call time, never 5xx', async () => {
    expect((await svc.http('POST', '/database/schemas', { body: { name: 'Memo', fields: { topic: 'String' } } })).status).toBe(201);
    expect((await define({ name: 'memos', operation: 'find', schema: 'Memo', inputs: { t: { type: 'String', from: 'query' } }, filter: { topic: { input: 't' } } })).status).toBe(
      201,
    );
    expect((await client('GET', '/database/function/memos?t=a', alice.token)).status).toBe(200);
    const changed = await svc.http('POST', '/database/schemas/import', { body: { schemas: [{ name: 'Memo', fields: { subject: 'String' } }] } });
    expect(changed.status).toBe(200);
    const r = await client('GET', '/database/function/memos?t=a', alice.token);
    expect([r.status, r.body.code]).toEqual([422, 'FUNCTION_OUT_OF_DATE']);
    expect(r.body.message).toContain('topic');
    // Saving it again is refused the same way until it is fixed.
    expect((await svc.http('PATCH', '/database/customEndpoints/memos', { body: { description: 'x' } })).status).toBe(400);
    expect((await svc.http('PATCH', '/database/customEndpoints/memos', { body: { filter: { subject: { input: 't' } } } })).status).toBe(200);
    expect((await client('GET', '/database/function/memos?t=a', alice.token)).status).toBe(200);
  });
  it('generated inputs to every kind of endpoint, with and without a token, are answered 2xx or 4xx, never 5xx', async () => {
    const names = ['tasksByStatus', 'myTasks', 'newTask', 'renameTask', 'dropTask', 'notices', 'teamTask', 'nothing'];
    const key = fc.constantFrom('status', 'min', 'id', 'title', 'priority', 'due', 'team', 'limit', 'skip', 'x', '__proto__', 'constructor', 'toString');
    const text = fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('$ne', '{"$gt":""}', '-1', '1e400', 'NaN', 'true', '2030-01-01', 'Team:t', 'Team:', '', '\u00e9\u4e2d'));
    const call = fc.record({
      name: fc.constantFrom(...names),
      post: fc.boolean(),
      token: fc.constantFrom('alice', 'carol', 'none', 'bad'),
      value: fc.option(text, { nil: undefined }),
      query: fc.dictionary(key, text, { maxKeys: 4 }),
      body: fc.dictionary(key,
        fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 2 }),
          fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 })), { maxKeys: 4 }),
    });
    const tokens: Record<string, string | undefined> = { alice: alice.token, carol: carol.token, none: undefined, bad: 'x.y.z' };
    const seen = new Map<number, number>();
    for (const c of fc.sample(call, { numRuns: 300, seed: 20 })) {
      const path = `/database/function/${c.name}${c.value === undefined ? '' : `/${encodeURIComponent(c.value)}`}?${
        new URLSearchParams(c.query as Record<string, string>).toString()
      }`;
      const r = await client(c.post ? 'POST' : 'GET', path, tokens[c.token], c.post ? c.body : undefined);
      seen.set(r.status, (seen.get(r.status) ?? 0) + 1);
      if (r.status >= 500 || (r.status >= 400 && typeof r.body?.code !== 'string')) {
        throw new Error(`${c.post ? 'POST' : 'GET'} ${path} ${JSON.stringify(c.body)} -> ${r.status} ${r.text}`);
      }
    }
    // The corpus reaches the endpoints themselves, not only the refusals in front of them.
    expect([...seen.keys()].filter((s) => s < 300).length).toBeGreaterThan(0);
    expect(seen.get(400)).toBeGreaterThan(0);
  }, 120_000);
});
