// Each route's transport mappings agree with the tables clients consume: the committed proto's methods (gRPC), the
// config modules' MCP tools, and the documents, all read from the routes the app's own modules register.
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { composeModules } from '../../src/wiring/compose.js';
import { OFFLINE_ENV, offlineRoutes } from '../../src/offline-documents.js';
import { memoryStores } from '../../src/stores/memory/stores.js';
import { MODULE_NAMES } from '../../src/services/config/module-configs.js';
import { openApiDocument } from '../../src/surfaces/docs/openapi.js';
import { CLIENT_GRAPHQL_ROUTES } from '../../src/surfaces/graphql/client-schema.js';
import { grpcBindings } from '../../src/surfaces/grpc/bindings.js';
import { GRPC_METHODS } from '../../src/surfaces/grpc/methods.js';
import { loadDefinition, SERVICE } from '../../src/surfaces/grpc/proto.js';
import { allTools } from '../../src/surfaces/mcp/tool-groups.js';
import { Registry, route, type Route } from '../../src/surfaces/registry.js';
import { z } from 'zod';

let routes: readonly Route[];
beforeAll(async () => {
  routes = await offlineRoutes();
}, 60_000);

type ProtoMethod = { responseStream: boolean; requestStream: boolean };
const proto = () => loadDefinition()[SERVICE] as unknown as Record<string, ProtoMethod>;
const stub = (over: Partial<Parameters<typeof route>[0]>) =>
  route({
    surface: 'admin',
    group: 'authorization',
    auth: 'admin',
    summary: 'x',
    http: { method: 'get', path: '/x' },
    output: z.object({}),
    handle: async () => ({}),
    ...over,
  });

describe('gRPC mapping', () => {
  it('binds every rpc of the committed proto to exactly one route, and no route names a method the proto lacks', () => {
    const bound = grpcBindings(routes);
    const named = routes.filter((r) => r.grpc !== undefined).map((r) => r.grpc!).sort();
    // A route whose `grpc` the proto lacks is a method clients cannot call; an rpc no route names answers UNIMPLEMENTED.
    expect(named).toEqual(Object.keys(proto()).sort());
    expect(Object.keys(bound).sort()).toEqual(Object.keys(proto()).sort());
  });

  it('streams exactly the methods the proto declares as server streams (paged lists and the watch)', () => {
    const bound = grpcBindings(routes);
    const shape = Object.entries(proto()).map(([name, m]) => [name, m.requestStream, m.responseStream]);
    expect(shape).toEqual(Object.keys(proto()).map((name) => [name, false, bound[name]!.kind !== 'unary']));
  });

  it('refuses a route naming a method with no translation, a method named twice, and a translation no route names', () => {
    expect(() => grpcBindings([...routes, stub({ grpc: 'NoSuchMethod' })])).toThrow(/NoSuchMethod.*does not translate/);
    expect(() => grpcBindings([...routes, stub({ grpc: 'Can', http: { method: 'get', path: '/y' } })])).toThrow(/Can is named by two routes/);
    expect(() => grpcBindings(routes.filter((r) => r.grpc !== 'Watch'))).toThrow(/no route names the gRPC methods Watch/);
    expect(() => grpcBindings([...routes.filter((r) => r.grpc !== 'Can'), stub({ grpc: 'Can', surface: 'client' })])).toThrow(/admin surface only/);
    expect(Object.keys(GRPC_METHODS).sort()).toEqual(Object.keys(proto()).sort());
  });
});

describe('MCP and config mapping', () => {
  it('gives every config module its read and change tools, loadable by its name', () => {
    const tools = allTools(routes, MODULE_NAMES);
    for (const m of MODULE_NAMES) {
      expect(tools.filter((t) => t.group === m && t.fixed?.module === m).map((t) => t.name).sort()).toEqual([`get_config_${m}`, `patch_config_${m}`]);
    }
  });

  it('puts every admin route a tool allows in the tool list under its own group', () => {
    const tools = allTools(routes, MODULE_NAMES);
    const byRoute = new Set(tools.map((t) => t.route.id));
    const expected = routes.filter((r) => r.surface === 'admin' && r.mcp !== false && r.auth !== 'user').map((r) => r.id);
    expect([...byRoute].sort()).toEqual([...new Set(expected)].sort());
  });
});

describe('GraphQL mapping', () => {
  it('runs its typed client fields on registered client routes', () => {
    const client = new Set(routes.filter((r) => r.surface === 'client').map((r) => r.id));
    expect(Object.values(CLIENT_GRAPHQL_ROUTES).filter((id) => !client.has(id))).toEqual([]);
  });
});

describe('module mapping', () => {
  it('registers the routes of every module that has a readiness probe under its own name (READY_REQUIRED_MODULES asks by it)', async () => {
    const stores = memoryStores();
    const registry = new Registry();
    const { modules } = await composeModules(stores, loadConfig(OFFLINE_ENV), registry, createLogger('silent'));
    for (const m of [...modules].reverse()) await m.stop?.();
    await stores.close();
    expect(new Set(modules.map((m) => m.name)).size).toBe(modules.length);
    const probed = modules.filter((m) => m.probe).map((m) => m.name);
    expect(probed.length).toBeGreaterThan(0);
    expect(probed.filter((name) => !registry.groups().includes(name))).toEqual([]);
  });
});

describe('documents', () => {
  it.each(['admin', 'client'] as const)("%s: documents every registered route of the surface once, besides the transports' own", (surface) => {
    const doc = openApiDocument(surface, routes, 'test') as { paths: Record<string, Record<string, { operationId?: string }>> };
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    const registered = routes.filter((r) => r.surface === surface)
      .map((r) => `${r.http.method.toUpperCase()} ${r.http.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}')}`);
    const own = surface === 'admin' ? ['POST /graphql', 'POST /mcp', 'GET /mcp', 'GET /docs/assets/{file}'] : ['POST /graphql', 'GET /docs/assets/{file}'];
    expect(documented.sort()).toEqual([...registered, ...own].sort());
  });
});
