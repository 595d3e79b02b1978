// GraphQL on both surfaces, through a real GraphQL client (graphql-request): generated from the schemas on the client
// surface with the same authorization as REST, generated from the route registry on the admin surface; REST error codes.
import { ClientError, GraphQLClient, gql } from 'graphql-request';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
const LIMITS = JSON.stringify({ routes: { 'POST /authentication/local/new': { windowMs: 60_000, max: 1000 } } });
beforeAll(async () => {
  svc = await startService({ ROUTER_RATE_LIMITS: LIMITS });
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

const rest = (method: string, path: string, token?: string, body?: unknown) =>
  svc.http(method, `${svc.client}${path}`, { body, headers: token ? { authorization: `Bearer ${token}` } : {} });

async function account(email: string) {
  expect((await rest('POST', '/authentication/local/new', undefined, { email, password: 'correct horse' })).status).toBe(201);
  const r = await rest('POST', '/authentication/local', undefined, { email, password: 'correct horse' });
  return { id: r.body.userId as string, token: r.body.accessToken as string,
    gql: new GraphQLClient(`${svc.client}/graphql`, { headers: { authorization: `Bearer ${r.body.accessToken}` } }) };
}

/** The GraphQL errors of a failed request, and its HTTP status. */
async function failure(p: Promise<unknown>): Promise<{ status: number; codes: string[]; errors: Array<{ message: string; extensions: Record<string, unknown> }> }> {
  try {
    await p;
  } catch (e) {
    if (!(e instanceof ClientError)) throw e;
    const errors = (e.response.errors ?? []) as unknown as Array<{ message: string; extensions: Record<string, unknown> }>;
    return { status: e.response.status, codes: errors.map((x) => String(x.extensions?.code)), errors };
  }
  throw new Error('expected the request to fail');
}

const CREATE = gql`mutation ($input: ReportInput!, $scope: String) { createReport(input: $input, scope: $scope) { _id title pages meta } }`;
const FIND = gql`query ($skip: Int, $limit: Int, $sort: String, $where: ReportFilter) {
  findReport(skip: $skip, limit: $limit, sort: $sort, where: $where) { count documents { _id title pages } } }`;

let alice: Awaited<ReturnType<typeof account>>;
let bob: Awaited<ReturnType<typeof account>>;

describe('client GraphQL: documents with the authorization of REST', () => {
  beforeAll(async () => {
    expect((await svc.http('POST', '/database/schemas', { body: {
      name: 'Report',
      fields: { title: { type: 'String', required: true }, pages: 'Number', meta: 'JSON' },
      serviceOptions: { authorization: { enabled: true } },
    } })).status).toBe(201);
    alice = await account('alice@gql.io');
    bob = await account('bob@gql.io');
  });

  it('creates, lists, reads, patches and deletes with the authorization of REST', async () => {
    const made = await alice.gql.request<{ createReport: { _id: string; title: string; pages: number } }>(CREATE, { input: { title: 'Q3', pages: 12, meta: { tags: ['x'] } } });
    expect(made.createReport).toMatchObject({ title: 'Q3', pages: 12, meta: { tags: ['x'] } });
    const id = made.createReport._id;
    await alice.gql.request(CREATE, { input: { title: 'Q4', pages: 3 } });
    // Alice sees hers, Bob sees none, by GraphQL as by REST.
    const mine = await alice.gql.request<{ findReport: { count: number; documents: Array<{ title: string }> } }>(FIND, { sort: '-pages' });
    expect(mine.findReport.count).toBe(2);
    expect(mine.findReport.documents.map((d) => d.title)).toEqual(['Q3', 'Q4']);
    const filtered = await alice.gql.request<{ findReport: { count: number } }>(FIND, { where: { title: 'Q4' } });
    expect(filtered.findReport.count).toBe(1);
    expect((await bob.gql.request<{ findReport: { count: number } }>(FIND)).findReport.count).toBe(0);
    expect((await rest('GET', '/database/Report', bob.token)).body.count).toBe(0);
    const one = gql`query ($id: ID!) { findOneReport(id: $id) { _id title } }`;
    expect((await alice.gql.request<{ findOneReport: unknown }>(one, { id })).findOneReport).toEqual({ _id: id, title: 'Q3' });
    expect((await bob.gql.request<{ findOneReport: unknown }>(one, { id })).findOneReport).toBeNull();

    const patch = gql`mutation ($id: ID!, $input: ReportInput!) { patchReport(id: $id, input: $input) { title pages } }`;
    const denied = await failure(bob.gql.request(patch, { id, input: { title: 'mine now' } }));
    expect(denied.codes).toEqual(['NOT_FOUND']);
    expect((await alice.gql.request<{ patchReport: unknown }>(patch, { id, input: { pages: 13 } })).patchReport).toEqual({ title: 'Q3', pages: 13 });

    const check = gql`query ($resource: String!) { authorizationCheck(action: "delete", resource: $resource) }`;
    expect((await alice.gql.request<{ authorizationCheck: boolean }>(check, { resource: `Report:${id}` })).authorizationCheck).toBe(true);
    expect((await bob.gql.request<{ authorizationCheck: boolean }>(check, { resource: `Report:${id}` })).authorizationCheck).toBe(false);
    // The check takes consistency and revision as over REST: a revision not reached yet is INDEX_BEHIND, a bad one a 400.
    const fresh =
      gql`query ($resource: String!, $consistency: String, $revision: Int) { authorizationCheck(action: "delete", resource: $resource, consistency: $consistency, revision: $revision) }`;
    const { revision } = (await svc.http('POST', '/authorization/relations', { body: { subject: 'User:someone', relation: 'owner', resource: 'Report:other' } })).body as {
      revision: number;
    };
    expect((await alice.gql.request<{ authorizationCheck: boolean }>(fresh, { resource: `Report:${id}`, consistency: 'at_least_as_fresh', revision })).authorizationCheck).toBe(
      true,
    );
    expect((await failure(alice.gql.request(fresh, { resource: `Report:${id}`, consistency: 'eventually', revision }))).codes).toEqual(['VALIDATION_FAILED']);

    const del = gql`mutation ($id: ID!) { deleteReport(id: $id) { tuples deleted } }`;
    expect((await failure(bob.gql.request(del, { id }))).codes).toEqual(['NOT_FOUND']);
    const gone = await alice.gql.request<{ deleteReport: { tuples: number; deleted: { _id: string } } }>(del, { id });
    expect(gone.deleteReport.tuples).toBe(1);
    expect(gone.deleteReport.deleted._id).toBe(id);
    expect((await alice.gql.request<{ findReport: { count: number } }>(FIND)).findReport.count).toBe(1);
  });

  it('a plain team member creating for the team is refused (403 code), as in REST', async () => {
    const team = await rest('POST', '/authentication/teams', alice.token, { name: 'Finance' });
    const inv = await rest('POST', `/authentication/teams/${team.body._id}/invite`, alice.token, { email: 'bob@gql.io' });
    expect((await rest('POST', '/authentication/teams/join', bob.token, { invitationToken: inv.body.invitationToken })).status).toBe(200);
    const refused = await failure(bob.gql.request(CREATE, { input: { title: 'for the team' }, scope: `Team:${team.body._id}` }));
    expect(refused.codes).toEqual(['FORBIDDEN']);
    expect(refused.errors[0]!.extensions.status).toBe(403);
    const made = await alice.gql.request<{ createReport: { _id: string } }>(CREATE, { input: { title: 'for the team' }, scope: `Team:${team.body._id}` });
    // Bob reads it through the team, like REST.
    const list = await bob.gql.request<{ findReport: { documents: Array<{ _id: string }> } }>(FIND);
    expect(list.findReport.documents.map((d) => d._id)).toEqual([made.createReport._id]);
  });
});

describe('client GraphQL: refusals and schema changes', () => {
  it('bad input is a 4xx-coded error and changes nothing, hostile operators included', async () => {
    const before = (await alice.gql.request<{ findReport: { count: number } }>(FIND)).findReport.count;
    const missing = await failure(alice.gql.request(CREATE, { input: { pages: 1 } }));
    expect(missing.codes).toEqual(['VALIDATION_FAILED']);
    const operator = await failure(alice.gql.request(CREATE, { input: { title: 'x', meta: { $ne: null } } }));
    expect(operator.codes).toEqual(['VALIDATION_FAILED']);
    const dotted = await failure(alice.gql.request(CREATE, { input: { title: 'x', meta: { 'a.b': 1 } } }));
    expect(dotted.codes).toEqual(['VALIDATION_FAILED']);
    const filter = await failure(alice.gql.request(FIND, { where: { title: { $ne: null } } }));
    expect(filter.codes).toEqual(['VALIDATION_FAILED']);
    expect(filter.status).toBe(400);
    const negative = await failure(alice.gql.request(FIND, { skip: -1 }));
    expect(negative.codes).toEqual(['VALIDATION_FAILED']);
    const syntax = await failure(alice.gql.request('query { findReport( }'));
    expect(syntax.codes).toEqual(['VALIDATION_FAILED']);
    const unknown = await failure(alice.gql.request('query { findSecrets { count } }'));
    expect(unknown.codes).toEqual(['VALIDATION_FAILED']);
    expect((await alice.gql.request<{ findReport: { count: number } }>(FIND)).findReport.count).toBe(before);
  });

  it('needs a client access token; admin credentials are refused', async () => {
    const anonymous = await failure(new GraphQLClient(`${svc.client}/graphql`).request(FIND));
    expect(anonymous.status).toBe(401);
    expect(anonymous.codes).toEqual(['UNAUTHENTICATED']);
    expect(anonymous.errors[0]!.extensions).toEqual({ code: 'UNAUTHENTICATED', status: 401 });
    const asAdmin = await failure(new GraphQLClient(`${svc.client}/graphql`, { headers: svc.asAdmin }).request(FIND));
    expect(asAdmin.status).toBe(401);
  });

  it('a schema without fields gets a create without input and no patch, and breaks nothing else', async () => {
    expect((await svc.http('POST', '/database/schemas', { body: { name: 'Marker', fields: {} } })).status).toBe(201);
    const made = await alice.gql.request<{ createMarker: { _id: string } }>('mutation { createMarker { _id } }');
    expect(made.createMarker._id).toBeTruthy();
    expect((await alice.gql.request<{ findMarker: { count: number } }>('{ findMarker { count } }')).findMarker.count).toBe(1);
    expect((await alice.gql.request<{ findReport: { count: number } }>(FIND)).findReport.count).toBeGreaterThan(0);
  });

  it('follows schema changes at once: a new schema has its fields in the next request', async () => {
    expect((await failure(alice.gql.request('mutation { createMemo(input: {text: "hi"}) { text } }'))).codes).toEqual(['VALIDATION_FAILED']);
    expect((await svc.http('POST', '/database/schemas', { body: { name: 'Memo', fields: { text: 'String' } } })).status).toBe(201);
    const memo = await alice.gql.request<{ createMemo: { text: string } }>('mutation { createMemo(input: {text: "hi"}) { text } }');
    expect(memo.createMemo.text).toBe('hi');
  });
});

describe('admin GraphQL', () => {
  const admin = () => new GraphQLClient(`${svc.admin}/graphql`, { headers: svc.asAdmin });

  it('has a field per admin route, named like the MCP tools, with flat arguments', async () => {
    await admin().request(gql`mutation { post_authorization_resources(name: "Ledger", relations: {auditor: ["User"]}, permissions: {read: ["auditor"]}) }`);
    const wrote = await admin().request<{ post_authorization_relations: { revision: number } }>(
      gql`mutation ($s: JSON, $r: JSON) { post_authorization_relations(subject: $s, relation: "auditor", resource: $r) }`,
      { s: 'User:ann', r: 'Ledger:l1' },
    );
    expect(wrote.post_authorization_relations.revision).toBeGreaterThan(0);
    const can = gql`query ($s: JSON) { get_authorization_permissions_can(subject: $s, permission: "read", resource: "Ledger:l1") }`;
    expect((await admin().request<{ get_authorization_permissions_can: { allowed: boolean } }>(can, { s: 'User:ann' })).get_authorization_permissions_can.allowed).toBe(true);
    expect((await admin().request<{ get_authorization_permissions_can: { allowed: boolean } }>(can, { s: 'User:bo' })).get_authorization_permissions_can.allowed).toBe(false);
    const schemas = await admin().request<{ get_database_schemas: { count: number; schemas: unknown[] } }>(gql`query { get_database_schemas(limit: 5) }`);
    expect(schemas.get_database_schemas).toEqual((await svc.http('GET', '/database/schemas?limit=5')).body);
  });

  it('answers with the REST codes and details, and changes nothing on bad input', async () => {
    const undefinedRelation = await failure(admin().request(gql`mutation { post_authorization_relations(subject: "User:ann", relation: "owner", resource: "Ledger:l2") }`));
    expect(undefinedRelation.codes).toEqual(['RELATION_NOT_DEFINED']);
    expect(undefinedRelation.errors[0]!.extensions.status).toBe(422);
    const shape = await failure(
      admin().request(gql`mutation ($s: JSON) { post_authorization_relations(subject: $s, relation: "auditor", resource: "Ledger:l2") }`, { s: { $ne: 1 } }),
    );
    expect(shape.codes).toEqual(['VALIDATION_FAILED']);
    expect(shape.errors[0]!.extensions.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: expect.stringMatching(/^body\.subject/) })]));
    const limit = await failure(admin().request(gql`query { get_database_schemas(limit: 0) }`));
    expect(limit.codes).toEqual(['VALIDATION_FAILED']);
    const tuples = await svc.http('GET', '/authorization/relations?resourceType=Ledger');
    expect(tuples.body.count).toBe(1);
  });

  it('needs admin credentials; client tokens are refused', async () => {
    for (const headers of [{}, { authorization: `Bearer ${alice.token}` }, { masterkey: 'wrong' }] as Array<Record<string, string>>) {
      const r = await failure(new GraphQLClient(`${svc.admin}/graphql`, { headers }).request(gql`query { get_database_schemas }`));
      expect(r.status).toBe(401);
      expect(r.codes).toEqual(['UNAUTHENTICATED']);
    }
  });
});

describe('client GraphQL rate limit', () => {
  it('answers 429 with Retry-After after a burst, held in Redis across processes', async () => {
    const strict = await startService({
      ROUTER_RATE_LIMITS: JSON.stringify({ routes: { 'POST /graphql': { windowMs: 60_000, max: 5 } } }),
      CLIENT_JWT_SECRET: svc.config.CLIENT_JWT_SECRET,
    }, { wipe: false });
    try {
      const answers = await Promise.all(Array.from({ length: 12 }, () =>
        fetch(`${strict.client}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${alice.token}` },
          body: JSON.stringify({ query: '{ authorizationCheck(action: "read", resource: "Report:x") }' }),
        })));
      const limited = answers.filter((a) => a.status === 429);
      expect(limited.length).toBeGreaterThanOrEqual(7);
      expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await limited[0]!.json()).code).toBe('RATE_LIMITED');
    } finally {
      await strict.stop();
    }
  });

  it('charges each field the limit of the route it mirrors: aliases do not multiply a request', async () => {
    const strict = await startService({
      ROUTER_RATE_LIMITS: JSON.stringify({ routes: { 'GET /authorization/check': { windowMs: 60_000, max: 5 } } }),
      CLIENT_JWT_SECRET: svc.config.CLIENT_JWT_SECRET,
    }, { wipe: false });
    try {
      const fields = Array.from({ length: 4 }, (_, i) => `c${i}: authorizationCheck(action: "read", resource: "Report:x${i}")`).join(' ');
      const ask = async () => {
        const r = await fetch(`${strict.client}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${alice.token}` },
          body: JSON.stringify({ query: `{ ${fields} }` }),
        });
        return await r.json() as { data: Record<string, boolean> | null; errors?: Array<{ extensions: { code: string } }> };
      };
      // Two requests of four checks each: within 5 checks a minute, the second cannot be answered.
      expect((await ask()).data).toEqual({ c0: false, c1: false, c2: false, c3: false });
      const second = await ask();
      expect(second.data).toBeNull();
      expect((second.errors ?? []).map((e) => e.extensions.code)).toContain('RATE_LIMITED');
      // The same count as the REST route's.
      expect((await fetch(`${strict.client}/authorization/check?action=read&resource=Report:y`, { headers: { authorization: `Bearer ${alice.token}` } })).status).toBe(429);
    } finally {
      await strict.stop();
    }
  });
});
