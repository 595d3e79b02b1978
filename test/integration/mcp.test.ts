// The MCP tool server at {admin}/mcp, through the SDK's own client over HTTP: module selection, tool names,
// authentication, errors in the REST body, documentation resources, and an agent provisioning team-owned documents.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
let apiToken: string;
beforeAll(async () => {
  svc = await startService();
  const made = await svc.http('POST', '/api-tokens', { body: { name: 'agent' } });
  expect(made.status).toBe(201);
  apiToken = made.body.token;
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

async function connect(query = '', headers: Record<string, string> = { authorization: `Bearer ${apiToken}` }) {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.admin}/mcp${query}`), { requestInit: { headers } }));
  return client;
}
const text = (r: unknown) => JSON.parse((r as { content: Array<{ text: string }> }).content[0]!.text);

it('loads core and list_modules by default, named by the contract, without the excluded routes', async () => {
  const client = await connect();
  const tools = (await client.listTools()).tools;
  const names = tools.map((t) => t.name).sort();
  // Every tool's arguments are shown closed, as the server refuses undeclared ones.
  expect(tools.filter((t) => t.name !== 'list_modules' && t.inputSchema.additionalProperties !== false).map((t) => t.name)).toEqual([]);
  expect(names).toEqual(
    expect.arrayContaining(['get_live', 'get_ready', 'post_apitokens', 'get_apitokens', 'delete_apitokens_id', 'get_config', 'get_config_core', 'patch_config_core',
      'get_state_export', 'post_state_import', 'list_modules']),
  );
  expect(names).not.toContain('post_login');
  expect(names.some((n) => n.startsWith('post_authorization'))).toBe(false);
  const modules = text(await client.callTool({ name: 'list_modules', arguments: {} }));
  expect(modules.loaded).toEqual(['core', '__meta__']);
  expect(modules.modules.find((m: { name: string }) => m.name === 'authorization')).toMatchObject({ loaded: false });
  expect(modules.aliases.communications).toEqual(['email', 'push', 'sms']);
  await client.close();
});

it("expands the communications alias to the sending tools and keeps the communications module's own config tools", async () => {
  const client = await connect('?modules=communications');
  const names = (await client.listTools()).tools.map((t) => t.name);
  expect(names).toEqual(
    expect.arrayContaining(['get_config_communications', 'patch_config_communications', 'post_communications_email', 'post_communications_push', 'post_communications_sms']),
  );
  expect(text(await client.callTool({ name: 'get_config_communications', arguments: {} }))).toHaveProperty('email');
  await client.close();
});

it('loads the modules asked for, with every example name of the contract and none of the excluded routes', async () => {
  const client = await connect('?modules=core,authorization,database,router');
  const names = new Set((await client.listTools()).tools.map((t) => t.name));
  for (const n of ['get_database_schemas', 'post_database_schemas', 'patch_config_database', 'get_config_database', 'patch_config_router', 'get_ready', 'get_live',
    'post_apitokens', 'get_apitokens', 'delete_apitokens_id', 'post_authorization_relations_many', 'post_authorization_indexer_reconstruct', 'get_database_schemas_export',
    'get_authorization_resources', 'post_authorization_resources', 'post_authorization_relations', 'get_authorization_permissions_can']) {
    expect([n, names.has(n)]).toEqual([n, true]);
  }
  for (const n of ['post_database_schemas_import', 'get_database_introspection', 'post_database_introspection', 'get_database_introspection_schemas',
    'post_database_introspection_schemas_finalize', 'post_login', 'get_config_module']) {
    expect([n, names.has(n)]).toEqual([n, false]);
  }
  await client.close();
});

it("lets an agent define a schema, give a team 100 documents and check a member's access", async () => {
  const client = await connect('?modules=core,authorization,database');
  const schema = await client.callTool({ name: 'post_database_schemas', arguments: {
    name: 'Report',
    fields: { title: 'String' },
    serviceOptions: { authorization: { enabled: true } },
  } });
  expect(schema.isError).toBeFalsy();
  const resources = Array.from({ length: 100 }, (_, i) => `Report:r${i}`);
  const many = text(await client.callTool({ name: 'post_authorization_relations_many', arguments: { subject: 'Team:t1', relation: 'owner', resources } }));
  expect(many.created).toBe(100);
  const member = text(await client.callTool({ name: 'post_authorization_relations', arguments: { subject: 'User:ann', relation: 'member', resource: 'Team:t1' } }));
  const revision = Math.max(many.revision, member.revision);
  const can = (subject: string, resource: string) =>
    client.callTool({ name: 'get_authorization_permissions_can', arguments: {
      subject,
      permission: 'read',
      resource,
      consistency: 'at_least_as_fresh',
      revision,
    } });
  expect(text(await can('User:ann', 'Report:r99')).allowed).toBe(true);
  expect(text(await can('User:bob', 'Report:r99')).allowed).toBe(false);
  const edit = text(await client.callTool({ name: 'get_authorization_permissions_can', arguments: { subject: 'User:ann', permission: 'edit', resource: 'Report:r0' } }));
  expect(edit.allowed).toBe(false);
  await client.close();
});

it('exports the state with its tuples and takes it back through the core tools, dry run first', async () => {
  const client = await connect();
  const state = text(await client.callTool({ name: 'get_state_export', arguments: { tuples: true } }));
  expect(state.version).toBe(1);
  expect(state.relations.length).toBeGreaterThanOrEqual(101);
  const extra = { ...state, relations: [...state.relations, { subject: 'User:cid', relation: 'member', resource: 'Team:t1' }] };
  const dry = text(await client.callTool({ name: 'post_state_import', arguments: { ...extra, dryRun: true } }));
  expect(dry).toMatchObject({ dryRun: true, relations: { created: 1, existing: state.relations.length } });
  const done = text(await client.callTool({ name: 'post_state_import', arguments: extra }));
  expect(done).toMatchObject({ dryRun: false, relations: { created: 1 } });
  const bad = await client.callTool({ name: 'post_state_import', arguments: { ...state, version: 3 } });
  expect(bad.isError).toBe(true);
  // The tool's input schema is the route's, so the SDK refuses it before the route runs.
  expect((bad as { content: Array<{ text: string }> }).content[0]!.text).toMatch(/version/);
  await client.close();
});

it('answers bad arguments with the REST error body, and stores nothing', async () => {
  const client = await connect('?modules=authorization');
  const bad = await client.callTool({ name: 'post_authorization_relations', arguments: { subject: 'User:ann', relation: 'nope', resource: 'Report:r1' } });
  expect(bad.isError).toBe(true);
  expect(text(bad)).toMatchObject({ status: 422, code: 'RELATION_NOT_DEFINED' });
  const hostile = await client.callTool({ name: 'post_authorization_relations', arguments: { subject: { $ne: null }, relation: 'owner', resource: 'Report:r1' } });
  expect(hostile.isError).toBe(true);
  // An argument the tool does not declare is refused, as REST refuses an unknown field, not dropped on the way.
  const extra = await client.callTool({ name: 'post_authorization_relations', arguments: { subject: 'User:ann', relation: 'owner', resource: 'Report:nope', colour: 'red' } });
  expect(extra.isError).toBe(true);
  expect(text(extra)).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', details: [{ path: 'colour' }] });
  // A config tool fixes its module: naming another one is refused, not quietly replaced.
  const core = await connect();
  const other = await core.callTool({ name: 'get_config_core', arguments: { module: 'router' } });
  expect([other.isError, text(other)]).toMatchObject([true, { status: 400, code: 'VALIDATION_FAILED', details: [{ path: 'module' }] }]);
  expect(text(await core.callTool({ name: 'get_config_core', arguments: {} }))).toBeDefined();
  await core.close();
  expect((await svc.http('GET', '/authorization/relations?search=nope')).body.count).toBe(0);
  await client.close();
});

it('speaks protocol 2025-06-18 when a client asks for it', async () => {
  const r = await fetch(`${svc.admin}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${apiToken}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    } }),
  });
  expect(r.status).toBe(200);
  const body = await r.json() as { result: { protocolVersion: string; serverInfo: { name: string } } };
  expect(body.result.protocolVersion).toBe('2025-06-18');
  expect(body.result.serverInfo.name).toBe('authz-graph');
});

it('serves the documentation as resources', async () => {
  const client = await connect();
  const uris = (await client.listResources()).resources.map((r) => r.uri);
  expect(uris).toContain('service://docs/guide');
  const guide = await client.readResource({ uri: 'service://docs/guide' });
  expect((guide.contents[0] as { text: string }).text).toContain('post_authorization_relations_many');
  await client.close();
});

it('needs an admin JWT or API token: nothing without, and not a masterkey or a client token', async () => {
  const post = (headers: Record<string, string>) =>
    fetch(`${svc.admin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
  await svc.http('POST', `${svc.client}/authentication/local/new`, { body: { email: 'app@mcp.io', password: 'correct horse' }, headers: {} });
  const user = await svc.http('POST', `${svc.client}/authentication/local`, { body: { email: 'app@mcp.io', password: 'correct horse' }, headers: {} });
  const refused: Array<Record<string, string>> = [
    {},
    { masterkey: svc.config.MASTER_KEY },
    { authorization: 'Bearer cdt_notatoken' },
    { authorization: `Bearer ${user.body.accessToken}` },
  ];
  for (const headers of refused) {
    const r = await post(headers);
    expect(r.status).toBe(401);
    expect((await r.json()).code).toBe('UNAUTHENTICATED');
  }
  await expect(connect('', {})).rejects.toThrow();
  const login = await svc.http('POST', '/login', { body: { username: 'admin', password: 'test-admin-password' }, headers: {} });
  const viaJwt = await connect('', { authorization: `Bearer ${login.body.token}` });
  expect((await viaJwt.listTools()).tools.length).toBeGreaterThan(5);
  await viaJwt.close();
  const unknown = await post({ authorization: `Bearer ${apiToken}` }).then(() =>
    fetch(`${svc.admin}/mcp?modules=nothing`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${apiToken}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
  );
  expect(unknown.status).toBe(400);
});

it('is off when core.transports.mcp is false', async () => {
  expect((await svc.http('PATCH', '/config/core', { body: { transports: { mcp: false } } })).status).toBe(200);
  await expect(connect()).rejects.toThrow();
  expect((await svc.http('PATCH', '/config/core', { body: { transports: { mcp: true } } })).status).toBe(200);
  const client = await connect();
  expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  await client.close();
});
