// A typo is a visible deny: every check answer naming an unknown type or permission carries its reason, on every transport.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AuthzGraphClient } from '../../src/client/grpc.js';
import { authz } from '../support/cli.js';
import { startService, type TestService } from '../support/service.js';
import { openSocket } from '../support/socket-client.js';

let svc: TestService;
let apiToken: string;
let userToken: string;
let userId: string;

const VEIW = { code: 'UNKNOWN_PERMISSION', message: 'Document has no relation or permission veiw (did you mean view?)', didYouMean: 'view' };
const NC_TYPE = { code: 'UNKNOWN_TYPE', message: 'no definition for type Documnet (did you mean Document?)', didYouMean: 'Document' };

beforeAll(async () => {
  svc = await startService();
  apiToken = (await svc.http('POST', '/api-tokens', { body: { name: 'reasons' } })).body.token;
  const document = { name: 'Document', relations: { viewer: ['User'] }, permissions: { view: ['viewer'] } };
  expect((await svc.http('POST', '/authorization/resources', { body: document })).status).toBe(200);
  const call = (path: string) =>
    fetch(svc.client + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'typo@example.com', password: 'correct horse' }) });
  await call('/authentication/local/new');
  const login = await (await call('/authentication/local')).json() as { accessToken: string; userId: string };
  userToken = login.accessToken;
  userId = login.userId;
  const grant = { subject: `User:${userId}`, relation: 'viewer', resource: 'Document:roadmap' };
  expect((await svc.http('POST', '/authorization/relations', { body: grant })).status).toBe(201);
}, 180_000);
afterAll(async () => {
  await svc?.stop();
});

const can = async (permission: string, resource: string, subject = 'User:alice') =>
  (await svc.http('GET', `/authorization/permissions/can?subject=${subject}&permission=${permission}&resource=${resource}`)).body;
const asUser = (path: string, init: RequestInit = {}) =>
  fetch(svc.client + path, {
    ...init,
    headers: { authorization: `Bearer ${userToken}`, 'content-type': 'application/json' },
  }).then(async (r) => ({ status: r.status, body: await r.json() as any })); // eslint-disable-line @typescript-eslint/no-explicit-any
const graphql = async (base: string, query: string, headers: Record<string, string>) => {
  const r = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) });
  return await r.json() as { data?: Record<string, unknown>; errors?: unknown[] };
};

describe('admin checks', () => {
  it('can answers a deny with the reason and a did-you-mean; a known name has none; self-access still holds', async () => {
    expect(await can('veiw', 'Document:roadmap')).toEqual({ allowed: false, reason: VEIW });
    expect(await can('view', 'Documnet:roadmap')).toEqual({ allowed: false, reason: NC_TYPE });
    expect(await can('fly', 'Document:roadmap')).toEqual({ allowed: false, reason: { code: 'UNKNOWN_PERMISSION', message: 'Document has no relation or permission fly' } });
    expect(await can('view', 'Document:roadmap')).toEqual({ allowed: false });
    expect(await can('view', 'Document:roadmap', `User:${userId}`)).toEqual({ allowed: true });
    expect(await can('veiw', 'Nope:x', 'Nope:x')).toEqual({ allowed: true });
  });

  it('a cached deny keeps its reason, and the reason follows the model in force', async () => {
    for (let i = 0; i < 3; i++) expect(await can('read', 'Later:x')).toMatchObject({ allowed: false, reason: { code: 'UNKNOWN_TYPE' } });
    expect((await svc.http('POST', '/authorization/resources', { body: { name: 'Later', relations: { reader: ['User'] }, permissions: { read: ['reader'] } } })).status).toBe(200);
    expect(await can('read', 'Later:x')).toEqual({ allowed: false });
    // Later is defined: these go through the decision cache (the second and third are hits).
    for (let i = 0; i < 3; i++) {
      expect(await can('raed', 'Later:x')).toEqual({ allowed: false,
        reason: { code: 'UNKNOWN_PERMISSION', message: 'Later has no relation or permission raed (did you mean read?)', didYouMean: 'read' } });
    }
  });

  it('bulk results and evaluate carry the reason; a scope refused still names the typo', async () => {
    const bulk = await svc.http('POST', '/authorization/permissions/bulk', { body: { items: [
      { subject: 'User:alice', permission: 'veiw', resource: 'Document:roadmap' },
      { subject: `User:${userId}`, permission: 'view', resource: 'Document:roadmap' },
      { subject: 'User:alice', permission: 'veiw', resource: 'Document:roadmap', scope: 'Team:t' },
    ] } });
    expect(bulk.body).toEqual({ results: [{ allowed: false, reason: VEIW }, { allowed: true }, { allowed: false, reason: VEIW }] });
    const ev = await svc.http('GET', '/authorization/permissions/evaluate?subject=User:alice&permission=veiw&resource=Document:roadmap');
    expect(ev.body).toMatchObject({ allowed: false, reason: VEIW.message, reasonCode: 'UNKNOWN_PERMISSION', didYouMean: 'view' });
  });

  it('admin GraphQL and MCP carry the same answer', async () => {
    const gql = await graphql(svc.admin, '{ get_authorization_permissions_can(subject: "User:alice", permission: "veiw", resource: "Document:roadmap") }', svc.asAdmin);
    expect(gql.data).toEqual({ get_authorization_permissions_can: { allowed: false, reason: VEIW } });
    const client = new Client({ name: 'reasons-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.admin}/mcp?modules=authorization`), { requestInit: { headers: { authorization: `Bearer ${apiToken}` } } }),
    );
    const tool = await client.callTool({ name: 'get_authorization_permissions_can', arguments: { subject: 'User:alice', permission: 'view', resource: 'Documnet:roadmap' } }) as {
      content: Array<{ text: string }>;
    };
    await client.close();
    expect(JSON.parse(tool.content[0]!.text)).toEqual({ allowed: false, reason: NC_TYPE });
  });

  it('gRPC Can, CheckBulk and Evaluate carry it in their new fields', async () => {
    const grpc = new AuthzGraphClient({ address: svc.grpc, masterkey: svc.config.MASTER_KEY });
    try {
      const typo = { subject: 'User:alice', permission: 'veiw', resource: 'Document:roadmap' };
      expect(await grpc.check(typo)).toMatchObject({ allowed: false, reason: VEIW });
      expect((await grpc.check({ ...typo, permission: 'view' })).reason ?? null).toBeNull();
      expect(await grpc.can(typo)).toBe(false);
      const bulk = await grpc.checkBulkAnswers([typo, { ...typo, resource: 'Documnet:roadmap', permission: 'view' }]);
      expect(bulk.map((r) => r.reason?.code)).toEqual(['UNKNOWN_PERMISSION', 'UNKNOWN_TYPE']);
      expect(bulk[1]!.reason).toMatchObject(NC_TYPE);
      expect(await grpc.evaluate(typo)).toMatchObject({ allowed: false, reason: VEIW.message, reasonCode: 'UNKNOWN_PERMISSION', didYouMean: 'view' });
    } finally {
      grpc.close();
    }
  });

  it('authz check prints the reason and exits 7 (0 when a deny was expected); a plain deny still exits 1', async () => {
    const env = { AUTHZ_URL: svc.admin, AUTHZ_TOKEN: apiToken };
    const typo = await authz(['check', 'User:alice', 'veiw', 'Document:roadmap'], { env });
    expect(typo).toMatchObject({ code: 7, stdout: `deny  User:alice veiw Document:roadmap\n  reason: UNKNOWN_PERMISSION: ${VEIW.message}\n` });
    expect((await authz(['check', 'User:alice', 'veiw', 'Document:roadmap', '--expect', 'deny'], { env })).code).toBe(0);
    const json = await authz(['check', 'User:alice#view@Documnet:roadmap', '--json'], { env });
    expect(json.code).toBe(7);
    expect(JSON.parse(json.stdout)).toMatchObject({ allowed: false, reason: NC_TYPE });
    expect((await authz(['check', 'User:alice', 'view', 'Document:roadmap'], { env })).code).toBe(1);
    expect((await authz(['evaluate', 'User:alice', 'veiw', 'Document:roadmap'], { env })).code).toBe(7);
  });
});

describe('client checks', () => {
  it('/authorization/check, /authorization/decisions and client GraphQL carry the reason', async () => {
    expect((await asUser('/authorization/check?action=veiw&resource=Document:roadmap')).body).toEqual({ allowed: false, reason: VEIW });
    expect((await asUser('/authorization/check?action=view&resource=Document:roadmap')).body).toEqual({ allowed: true });
    // A scope the caller may not use is still a 403, which names the typo as well.
    expect(await asUser('/authorization/check?action=veiw&resource=Document:roadmap&scope=Team:t')).toEqual({ status: 403, body: {
      code: 'FORBIDDEN',
      message: `You need veiw on the scope Team:t; and UNKNOWN_PERMISSION: ${VEIW.message}`,
    } });
    expect((await asUser('/authorization/check?action=view&resource=Documnet:roadmap&scope=Team:t')).body.message)
      .toBe(`You need view on the scope Team:t; and UNKNOWN_TYPE: ${NC_TYPE.message}`);
    expect((await asUser('/authorization/check?action=view&resource=Document:roadmap&scope=Team:t')).body.message).toBe('You need view on the scope Team:t');
    const decisions = await asUser('/authorization/decisions', { method: 'POST', body: JSON.stringify({ items: [
      { action: 'veiw', resource: 'Document:roadmap' },
      { action: 'view', resource: 'Documnet:roadmap' },
      { action: 'view', resource: 'Document:roadmap' },
    ] }) });
    expect(decisions.body.items.map((i: { allowed: boolean; reason?: unknown }) => [i.allowed, i.reason])).toEqual([[false, VEIW], [false, NC_TYPE], [true, undefined]]);
    const gql = await graphql(svc.client, '{ authorizationDecision(action: "veiw", resource: "Document:roadmap") { allowed reason { code message didYouMean } } }', {
      authorization: `Bearer ${userToken}`,
    });
    expect(gql.data).toEqual({ authorizationDecision: { allowed: false, reason: VEIW } });
  });

  it("the socket's first answers carry the reason", async () => {
    const s = await openSocket(svc.socket, userToken);
    try {
      s.send({ type: 'subscribe', topic: 'decisions', id: 'typo', items: [{ action: 'veiw', resource: 'Document:roadmap' }, { action: 'view', resource: 'Document:roadmap' }] });
      const subscribed = await s.next((m) => m.type === 'subscribed');
      expect(subscribed.items).toEqual([
        { action: 'veiw', resource: 'Document:roadmap', allowed: false, reason: VEIW, revision: expect.any(Number) },
        { action: 'view', resource: 'Document:roadmap', allowed: true, revision: expect.any(Number) },
      ]);
    } finally {
      s.ws.close();
    }
  });
});

describe('typos refused when written', () => {
  it('an arrow to a misspelt name is refused (API and state import); one through a type defined later is accepted', async () => {
    const folder = { name: 'Folder', relations: { parent: ['Folder', 'Document'] }, permissions: { view: ['parent->veiw'] } };
    const r = await svc.http('POST', '/authorization/resources', { body: folder });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'INVALID_DEFINITION',
      message: 'entry parent->veiw: no type parent allows (Folder, Document) declares veiw (did you mean parent->view?)' });
    expect((await svc.http('GET', '/authorization/resources/Folder')).status).toBe(404);
    const imported = await svc.http('POST', '/state/import', { body: { version: 1, resources: [folder] } });
    expect(imported.status).toBe(422);
    expect(imported.body.details).toEqual([expect.objectContaining({ path: 'resources.0.permissions.view', code: 'INVALID_DEFINITION' })]);
    const later = { name: 'Shelf', relations: { parent: ['Cabinet'] }, permissions: { view: ['parent->veiw'] } };
    expect((await svc.http('POST', '/authorization/resources', { body: later })).status).toBe(200);
  });

  it('an import that fixes a name and an arrow to it together is applied whole, as its dry run said', async () => {
    const dok = { name: 'Dok', relations: { viewer: ['User'] }, permissions: { viwe: ['viewer'] } };
    expect((await svc.http('POST', '/authorization/resources', { body: dok })).status).toBe(200);
    const doc = { version: 1, resources: [
      { name: 'Aaa', relations: { owner: ['User'] }, permissions: { read: ['owner'] } },
      { name: 'Fold', relations: { parent: ['Dok'] }, permissions: { view: ['parent->view'] } },
      { ...dok, permissions: { view: ['viewer'] } },
    ] };
    const dry = await svc.http('POST', '/state/import?dryRun=true', { body: doc });
    expect(dry.status).toBe(200);
    expect(dry.body.resources).toMatchObject({ created: ['Aaa', 'Fold'], updated: ['Dok'] });
    const r = await svc.http('POST', '/state/import', { body: doc });
    expect([r.status, r.body.resources]).toEqual([200, dry.body.resources]);
    expect((await svc.http('GET', '/authorization/resources/Fold')).body.permissions).toEqual({ view: ['parent->view'] });
    expect((await svc.http('GET', '/authorization/resources/Dok')).body.permissions).toEqual({ view: ['viewer'] });
  });

  it('a tuple written back to front says which order would be stored', async () => {
    const r = await svc.http('POST', '/authorization/relations', { body: { subject: 'Document:roadmap', relation: 'viewer', resource: `User:${userId}` } });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({
      code: 'RELATION_NOT_DEFINED',
      message: `User has no relation viewer; subject and resource may be swapped: did you mean User:${userId}#viewer@Document:roadmap?`,
    });
  });
});
