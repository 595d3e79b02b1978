// One access-log line and one count per call, whatever the transport: a check through REST, GraphQL, MCP and gRPC,
// and a socket subscription, each make exactly one line naming route, transport and outcome, and move that route's
// authz_calls_total by one under the right outcome. Tracing is off here (no endpoint): nothing is registered.
import { Metadata, credentials, loadPackageDefinition, type Client as GrpcClient, type GrpcObject, type ServiceClientConstructor, type ServiceError } from '@grpc/grpc-js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { context, propagation, trace } from '@opentelemetry/api';
import { loadDefinition } from '../../src/surfaces/grpc/proto.js';
import { startService, type TestService } from '../support/service.js';
import { openSocket } from '../support/socket-client.js';

let svc: TestService;
let apiToken: string;
const lines: string[] = [];
const CAN = 'get_authorization_permissions_can';

beforeAll(async () => {
  svc = await startService({ LOG_LEVEL: 'info' }, { logLines: lines });
  apiToken = (await svc.http('POST', '/api-tokens', { body: { name: 'call-log' } })).body.token;
  await svc.http('POST', '/authorization/resources', { body: { name: 'Doc', relations: { viewer: ['User'] }, permissions: { read: ['viewer'] } } });
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

interface Line {
  route?: string;
  transport?: string;
  outcome?: string;
  res?: { statusCode: number };
  req?: { id: string; url?: string };
  responseTime?: number;
}
const parsed = () => lines.map((l) => JSON.parse(l) as Line);
const callLines = (route: string, transport: string) => parsed().filter((l) => l.route === route && l.transport === transport);

async function counted(surface: string, route: string, transport: string, outcome: string): Promise<number> {
  const want = [`surface="${surface}"`, `route="${route}"`, `transport="${transport}"`, `outcome="${outcome}"`];
  const line = (await svc.http('GET', '/metrics')).text.split('\n')
    .find((l) => l.startsWith('authz_calls_total{') && want.every((w) => l.includes(w)));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/** Makes one call through `call`; expects one line for it (and no other line of its request) and one count. */
async function once(surface: string, route: string, transport: string, outcome: string, call: () => Promise<unknown>): Promise<Line> {
  const before = { lines: callLines(route, transport).length, count: await counted(surface, route, transport, outcome) };
  await call();
  // The line is written as the call ends, which may be a moment after a socket's answer is read.
  for (let i = 0; i < 40 && callLines(route, transport).length === before.lines; i++) await new Promise((r) => setTimeout(r, 25));
  const added = callLines(route, transport).slice(before.lines);
  expect([transport, added.length]).toEqual([transport, 1]);
  const line = added[0]!;
  expect(line.outcome).toBe(outcome);
  expect(typeof line.responseTime).toBe('number');
  // Nothing else was logged for the same request (the HTTP access log leaves requests that made a call to it).
  expect(parsed().filter((l) => l.req?.id === line.req?.id)).toHaveLength(1);
  expect(await counted(surface, route, transport, outcome) - before.count).toBe(1);
  return line;
}

const check = { subject: 'User:log', permission: 'read', resource: 'Doc:log' };

it("REST: one line with the request's url and status, one count; a refused call counts under its error code", async () => {
  const ok = await once('admin', CAN, 'rest', 'ok', () => svc.http('GET', `/authorization/permissions/can?subject=User:log&permission=read&resource=Doc:log`));
  expect(ok).toMatchObject({ res: { statusCode: 200 }, req: { url: '/authorization/permissions/can?subject=User:log&permission=read&resource=Doc:log' } });
  const bad = await once('admin', CAN, 'rest', 'VALIDATION_FAILED', () => svc.http('GET', '/authorization/permissions/can?subject=nobody&permission=read&resource=Doc:log'));
  expect(bad.res?.statusCode).toBe(400);
});

it('GraphQL: the field is one line, and its HTTP request no second one', async () => {
  await once('admin', CAN, 'graphql', 'ok', async () => {
    const r = await svc.http('POST', '/graphql', { body: { query: `{ ${CAN}(subject: "User:log", permission: "read", resource: "Doc:log") }` } });
    expect(r.body.data[CAN]).toEqual({ allowed: false });
  });
});

it('MCP: a tool call is one line', async () => {
  const client = new Client({ name: 'call-log-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.admin}/mcp?modules=authorization`), { requestInit: { headers: { authorization: `Bearer ${apiToken}` } } }));
  try {
    await once('admin', CAN, 'mcp', 'ok', async () => {
      const r = await client.callTool({ name: CAN, arguments: check });
      expect(r.isError).toBeFalsy();
    });
  } finally {
    await client.close();
  }
});

it('gRPC: a call is one line', async () => {
  const pkg = loadPackageDefinition(loadDefinition()) as unknown as { authzgraph: { v1: GrpcObject } };
  const Ctor = pkg.authzgraph.v1.AuthzGraph as ServiceClientConstructor;
  const client = new Ctor(svc.grpc, credentials.createInsecure()) as GrpcClient & Record<string,
    (req: unknown, md: Metadata, cb: (e: ServiceError | null, r: unknown) => void) => void>;
  const md = new Metadata();
  md.set('masterkey', svc.config.MASTER_KEY);
  try {
    await once('admin', CAN, 'grpc', 'ok', () => new Promise((resolve, reject) => client.Can!(check, md, (e, r) => (e ? reject(e) : resolve(r)))));
  } finally {
    client.close();
  }
});

it('the socket: a subscription is one call of the decisions route, one line', async () => {
  const auth = (path: string) =>
    fetch(svc.client + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'log@example.com', password: 'correct horse' }) });
  await auth('/authentication/local/new');
  const token = ((await (await auth('/authentication/local')).json()) as { accessToken: string }).accessToken;
  const socket = await openSocket(svc.socket, token);
  try {
    await once('client', 'post_authorization_decisions', 'socket', 'ok', async () => {
      socket.send({ type: 'subscribe', topic: 'decisions', id: 's', items: [{ action: 'read', resource: 'Doc:log' }] });
      await socket.next((m) => m.type === 'subscribed');
    });
  } finally {
    socket.ws.close();
  }
});

it('a request that reaches no route is still logged, once', async () => {
  const r = await svc.http('GET', '/no-such-route-here');
  expect(r.status).toBe(404);
  const logged = parsed().filter((l) => l.req?.url === '/no-such-route-here');
  expect(logged).toHaveLength(1);
  expect(logged[0]).toMatchObject({ res: { statusCode: 404 } });
  expect(logged[0]!.route).toBeUndefined();
});

it('with no OTLP endpoint no tracer provider, propagator or context manager is registered', () => {
  const span = trace.getTracer('probe').startSpan('probe');
  expect(span.isRecording()).toBe(false);
  span.end();
  expect(propagation.fields()).toEqual([]);
  // Without a context manager, a context set for a function is not the active one inside it.
  const probe = trace.wrapSpanContext({ traceId: '1'.repeat(32), spanId: '1'.repeat(16), traceFlags: 1 });
  expect(context.with(trace.setSpan(context.active(), probe), () => trace.getSpan(context.active()))).toBeUndefined();
  expect(parsed().some((l) => (l as { msg?: string }).msg?.startsWith('tracing on'))).toBe(false);
});
