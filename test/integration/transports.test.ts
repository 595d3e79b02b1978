// Every transport serves exactly the registry routes it should, through the one pipeline: the same rate limit and the same error codes.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { WebSocket } from 'ws';
import { AuthzGraphClient, AuthzGraphError } from '../../src/client/grpc.js';
import { adminGraphqlRoutes } from '../../src/surfaces/graphql/admin-schema.js';
import { CLIENT_GRAPHQL_ROUTES } from '../../src/surfaces/graphql/client-schema.js';
import { grpcBindings } from '../../src/surfaces/grpc/bindings.js';
import { loadDefinition, SERVICE } from '../../src/surfaces/grpc/proto.js';
import { allTools } from '../../src/surfaces/mcp/tool-groups.js';
import { MODULE_NAMES } from '../../src/services/config/module-configs.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
let apiToken: string;
// Small limits on two client routes, so one caller reaches them across transports.
const LIMITS = JSON.stringify({ routes: { 'GET /authorization/check': { windowMs: 60_000, max: 4 }, 'POST /authorization/decisions': { windowMs: 60_000, max: 3 } } });

beforeAll(async () => {
  svc = await startService({ ROUTER_RATE_LIMITS: LIMITS });
  apiToken = (await svc.http('POST', '/api-tokens', { body: { name: 'transports' } })).body.token;
  await svc.http('POST', '/authorization/resources', { body: { name: 'Doc', relations: { viewer: ['User'] }, permissions: { read: ['viewer'] } } });
});
afterAll(async () => {
  await svc?.stop();
});

const graphql = async (base: string, query: string, headers: Record<string, string>) => {
  const r = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) });
  return { status: r.status, body: await r.json() as { data?: Record<string, unknown>; errors?: Array<{ extensions: { code: string } }> } };
};
async function mcp() {
  const client = new Client({ name: 'transports-test', version: '1.0.0' });
  const modules = MODULE_NAMES.join(',') + ',authorization,database,core';
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.admin}/mcp?modules=${modules}`), { requestInit: { headers: { authorization: `Bearer ${apiToken}` } } }));
  return client;
}
async function user(email: string) {
  const call = (path: string) =>
    fetch(svc.client + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'correct horse' }) });
  await call('/authentication/local/new');
  return (await (await call('/authentication/local')).json() as { accessToken: string }).accessToken;
}

describe('the registry and its transports: one table, every transport', () => {
  it('admin GraphQL has one field per admin route, named by the route id', async () => {
    const r = await graphql(svc.admin, '{ __schema { queryType { fields { name } } mutationType { fields { name } } } }', { masterkey: svc.config.MASTER_KEY });
    const schema = r.body.data!.__schema as { queryType: { fields: Array<{ name: string }> }; mutationType: { fields: Array<{ name: string }> } };
    const fields = [...schema.queryType.fields, ...schema.mutationType.fields].map((f) => f.name).sort();
    expect(fields).toEqual(adminGraphqlRoutes(svc.app.registry.all()).map((x) => x.id).sort());
  });

  it('MCP lists one tool per admin route that allows it (config routes per module), plus list_modules', async () => {
    const client = await mcp();
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    await client.close();
    const expected = allTools(svc.app.registry.all(), MODULE_NAMES).map((t) => t.name);
    expect(names).toEqual([...new Set([...expected, 'list_modules'])].sort());
    expect(names).toContain('get_config');
    expect(names).toContain('get_authorization_changes');
  });

  it('gRPC serves exactly its method table, each method an admin route of the registry', () => {
    const service = loadDefinition()[SERVICE] as Record<string, unknown>;
    const bound = grpcBindings(svc.app.registry.all());
    expect(Object.keys(service).sort()).toEqual(Object.keys(bound).sort());
    for (const m of Object.values(bound)) expect(() => svc.app.registry.get('admin', m.route)).not.toThrow();
  });

  it('client GraphQL and the socket run client routes of the registry', () => {
    for (const id of Object.values(CLIENT_GRAPHQL_ROUTES)) expect(svc.app.registry.get('client', id).surface).toBe('client');
    expect(svc.app.registry.get('client', 'post_authorization_decisions').auth).toBe('user');
  });

  it('route ids are unique per surface and every route has one', () => {
    for (const surface of ['admin', 'client'] as const) {
      const ids = svc.app.registry.of(surface).map((x) => x.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.every((id) => /^(get|post|patch|put|delete)_[a-z0-9_]*$/.test(id))).toBe(true);
    }
  });
});

describe('the registry and its transports: the same limits and errors on every transport', () => {
  it('one rate limit per route whatever the transport: REST calls and GraphQL aliases share it', async () => {
    const token = await user('limited@example.com');
    const bearer = { authorization: `Bearer ${token}` };
    const rest = () => fetch(`${svc.client}/authorization/check?action=read&resource=Doc:1`, { headers: bearer });
    expect((await rest()).status).toBe(200);
    // Two aliases are two calls of the route.
    const two = await graphql(svc.client, '{ a: authorizationCheck(action: "read", resource: "Doc:1") b: authorizationCheck(action: "read", resource: "Doc:2") }', bearer);
    expect(two.body.data).toEqual({ a: false, b: false });
    expect((await rest()).status).toBe(200);
    // The limit (4) is reached: the next call is refused on every transport.
    const refused = await rest();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    const viaGraphql = await graphql(svc.client, '{ authorizationCheck(action: "read", resource: "Doc:3") }', bearer);
    expect(viaGraphql.body.errors?.[0]?.extensions.code).toBe('RATE_LIMITED');
  });

  it('the socket charges each subscribe to the decisions route, as REST does, an item a call', async () => {
    const token = await user('socket-limited@example.com');
    const rest = (n = 1) =>
      fetch(`${svc.client}/authorization/decisions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ items: Array.from({ length: n }, (_, i) => ({ action: 'read', resource: `Doc:${i}` })) }),
      });
    // Two items count as two calls: with the limit at 3, one subscribe of one item is left.
    expect((await rest(2)).status).toBe(200);
    const ws = new WebSocket(svc.socket, { headers: { authorization: `Bearer ${token}` } });
    const answers: Array<{ type: string; code?: string }> = [];
    ws.on('message', (d) => answers.push(JSON.parse(String(d))));
    await new Promise((r) => ws.once('open', r));
    for (const id of ['x', 'y']) ws.send(JSON.stringify({ type: 'subscribe', topic: 'decisions', id, items: [{ action: 'read', resource: 'Doc:1' }] }));
    for (let i = 0; i < 100 && answers.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    ws.close();
    // A subscription's checks run beside the socket's next messages, so the refusal may be answered first.
    expect(answers.map((a) => a.type === 'error' ? a.code : a.type).sort()).toEqual(['RATE_LIMITED', 'subscribed']);
    expect((await rest()).status).toBe(429);
  });

  it('the same bad input and the same missing credentials give the same catalog code on every transport', async () => {
    const bad = { subject: 'not-an-object', permission: 'read', resource: 'Doc:1' };
    const rest = await svc.http('GET', `/authorization/permissions/can?subject=${bad.subject}&permission=read&resource=Doc:1`);
    const gql = await graphql(svc.admin, `{ get_authorization_permissions_can(subject: "${bad.subject}", permission: "read", resource: "Doc:1") }`, {
      masterkey: svc.config.MASTER_KEY,
    });
    const client = await mcp();
    const tool = await client.callTool({ name: 'get_authorization_permissions_can', arguments: bad }) as { isError?: boolean; content: Array<{ text: string }> };
    await client.close();
    const grpc = new AuthzGraphClient({ address: svc.grpc, masterkey: svc.config.MASTER_KEY });
    const viaGrpc = await grpc.can(bad).then(() => null, (e: AuthzGraphError) => e);
    grpc.close();
    expect([rest.body.code, gql.body.errors?.[0]?.extensions.code, tool.isError && JSON.parse(tool.content[0]!.text).code, viaGrpc?.code])
      .toEqual(['VALIDATION_FAILED', 'VALIDATION_FAILED', 'VALIDATION_FAILED', 'VALIDATION_FAILED']);

    const anonymous = await svc.http('GET', '/authorization/permissions/can?subject=User:a&permission=read&resource=Doc:1', { headers: {} });
    const anonymousGql = await graphql(svc.admin, '{ get_live }', {});
    const anonymousGrpc = new AuthzGraphClient({ address: svc.grpc });
    const refusedGrpc = await anonymousGrpc.can({ subject: 'User:a', permission: 'read', resource: 'Doc:1' }).then(() => null, (e: AuthzGraphError) => e);
    anonymousGrpc.close();
    expect([anonymous.body.code, anonymousGql.body.errors?.[0]?.extensions.code, refusedGrpc?.code]).toEqual(['UNAUTHENTICATED', 'UNAUTHENTICATED', 'UNAUTHENTICATED']);
  });
});
