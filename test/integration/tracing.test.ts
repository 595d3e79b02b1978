// Tracing on (an in-memory exporter stands for the OTLP endpoint): a check through REST, gRPC, GraphQL, MCP and the
// realtime socket, each sent with a W3C traceparent (header, metadata, or the socket's upgrade), becomes a span named
// by the route id, child of the caller's span, with the store calls it made as its children. The traces are printed.
import { Metadata, credentials, loadPackageDefinition, type Client, type GrpcObject, type ServiceClientConstructor, type ServiceError } from '@grpc/grpc-js';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { GraphQLClient, gql } from 'graphql-request';
import { WebSocket } from 'ws';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { loadDefinition } from '../../src/surfaces/grpc/proto.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
const exporter = new InMemorySpanExporter();
const CAN = 'get_authorization_permissions_can';

beforeAll(async () => {
  svc = await startService({}, { spanExporter: exporter });
  await svc.http('POST', '/authorization/resources', { body: { name: 'Doc', relations: { viewer: ['User'] }, permissions: { read: ['viewer'] } } });
  await svc.http('POST', '/authorization/relations', { body: { subject: 'User:t', relation: 'viewer', resource: 'Doc:traced' } });
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

/** A caller's span: a trace id and a span id of its own, sampled. */
function callerSpan() {
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join('');
  const trace = hex(32);
  const span = hex(16);
  return { trace, span, header: `00-${trace}-${span}-01` };
}

/** Waits for the route's span in trace `traceId`, then gives the whole trace. */
async function traceOf(traceId: string, route = CAN): Promise<ReadableSpan[]> {
  for (let i = 0; i < 100; i++) {
    const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    if (spans.some((s) => s.name === route)) return spans;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no ${route} span in trace ${traceId}`);
}

const ms = (s: ReadableSpan) => s.duration[0] * 1e3 + s.duration[1] / 1e6;
function print(title: string, spans: ReadableSpan[]): void {
  const rows = spans.map((s) => `  ${s.name.padEnd(44)} span ${s.spanContext().spanId}  parent ${s.parentSpanContext?.spanId ?? '(none)'}  ${ms(s).toFixed(2)} ms`);
  console.log(`${title}\n${rows.join('\n')}`);
}

function expectCallTrace(spans: ReadableSpan[], caller: { span: string }, transport: string, route = CAN): void {
  const call = spans.find((s) => s.name === route)!;
  expect(call.parentSpanContext?.spanId).toBe(caller.span);
  expect(call.attributes['authz.transport']).toBe(transport);
  expect(call.attributes['authz.status']).toBe(200);
  const children = spans.filter((s) => s.parentSpanContext?.spanId === call.spanContext().spanId);
  // A fully consistent check reads the revision and asks the index: at least one store call, each a child span.
  expect(children.length).toBeGreaterThan(0);
  for (const c of children) expect(c.name).toMatch(/^[a-zA-Z]+(\.[a-zA-Z]+)+$/);
}

it("a check through REST is a span under the caller's traceparent, with its store calls as children", async () => {
  const caller = callerSpan();
  const r = await svc.http('GET', '/authorization/permissions/can?subject=User:t&permission=read&resource=Doc:traced&consistency=fully_consistent', {
    headers: { ...svc.asAdmin, traceparent: caller.header },
  });
  expect(r.body.allowed).toBe(true);
  const spans = await traceOf(caller.trace);
  print('REST check, trace ' + caller.trace, spans);
  expectCallTrace(spans, caller, 'rest');
});

it("a check through gRPC takes the traceparent from the call's metadata", async () => {
  const pkg = loadPackageDefinition(loadDefinition()) as unknown as { authzgraph: { v1: GrpcObject } };
  const Ctor = pkg.authzgraph.v1.AuthzGraph as ServiceClientConstructor;
  const client = new Ctor(svc.grpc, credentials.createInsecure()) as Client & Record<string,
    (req: unknown, md: Metadata, cb: (e: ServiceError | null, r: { allowed: boolean }) => void) => void>;
  const caller = callerSpan();
  const md = new Metadata();
  md.set('masterkey', svc.config.MASTER_KEY);
  md.set('traceparent', caller.header);
  try {
    const reply = await new Promise<{ allowed: boolean }>((resolve, reject) => {
      client.Can!({ subject: 'User:t', permission: 'read', resource: 'Doc:traced', consistency: 'FULLY_CONSISTENT' }, md, (e, r) => (e ? reject(e) : resolve(r)));
    });
    expect(reply.allowed).toBe(true);
  } finally {
    client.close();
  }
  const spans = await traceOf(caller.trace);
  print('gRPC check, trace ' + caller.trace, spans);
  expectCallTrace(spans, caller, 'grpc');
});

it("a check through GraphQL is a span of its field's route under the request's traceparent", async () => {
  const caller = callerSpan();
  const client = new GraphQLClient(`${svc.admin}/graphql`, { headers: { ...svc.asAdmin, traceparent: caller.header } });
  const reply = await client.request<{ get_authorization_permissions_can: { allowed: boolean } }>(
    gql`query { get_authorization_permissions_can(subject: "User:t", permission: "read", resource: "Doc:traced", consistency: "fully_consistent") }`,
  );
  expect(reply.get_authorization_permissions_can.allowed).toBe(true);
  const spans = await traceOf(caller.trace);
  print('GraphQL check, trace ' + caller.trace, spans);
  expectCallTrace(spans, caller, 'graphql');
});

it('a check through an MCP tool takes the traceparent of its HTTP request', async () => {
  const caller = callerSpan();
  // MCP takes an API token or an admin JWT, never the master key.
  const token = (await svc.http('POST', '/api-tokens', { body: { name: 'tracing' } })).body.token as string;
  const client = new McpClient({ name: 'tracing-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${svc.admin}/mcp?modules=authorization`), {
      requestInit: { headers: { authorization: `Bearer ${token}`, traceparent: caller.header } },
    }),
  );
  try {
    const reply = await client.callTool({ name: CAN, arguments: { subject: 'User:t', permission: 'read', resource: 'Doc:traced', consistency: 'fully_consistent' } });
    expect(JSON.stringify(reply.content)).toContain('true');
  } finally {
    await client.close();
  }
  const spans = await traceOf(caller.trace);
  print('MCP check, trace ' + caller.trace, spans);
  expectCallTrace(spans, caller, 'mcp');
});

it('a decision on the realtime socket takes the traceparent of the upgrade', async () => {
  const login = (path: string) =>
    fetch(svc.client + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'traced@example.com', password: 'correct horse' }) });
  await login('/authentication/local/new');
  const { userId, accessToken } = await (await login('/authentication/local')).json() as { userId: string; accessToken: string };
  await svc.http('POST', '/authorization/relations', { body: { subject: `User:${userId}`, relation: 'viewer', resource: 'Doc:traced' } });
  const caller = callerSpan();
  const ws = new WebSocket(svc.socket, { headers: { authorization: `Bearer ${accessToken}`, traceparent: caller.header } });
  try {
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const answer = new Promise<string>((resolve) => ws.once('message', (data) => resolve(String(data))));
    ws.send(JSON.stringify({ type: 'subscribe', topic: 'decisions', id: 'd', items: [{ action: 'read', resource: 'Doc:traced' }] }));
    expect(await answer).toContain('"allowed":true');
  } finally {
    ws.close();
  }
  const route = 'post_authorization_decisions';
  const spans = await traceOf(caller.trace, route);
  print('socket decision, trace ' + caller.trace, spans);
  expectCallTrace(spans, caller, 'socket', route);
});

it('a call without a traceparent starts a trace of its own; background work makes no spans', async () => {
  exporter.reset();
  await svc.http('GET', '/authorization/permissions/can?subject=User:t&permission=read&resource=Doc:traced&consistency=fully_consistent');
  await new Promise((r) => setTimeout(r, 300));
  const spans = exporter.getFinishedSpans();
  const calls = spans.filter((s) => s.name === CAN);
  expect(calls).toHaveLength(1);
  expect(calls[0]!.parentSpanContext).toBeUndefined();
  expect(spans.length).toBeGreaterThan(1);
  // Every root is a call (route ids have no dots; store spans are named port.method): a store call outside any call
  // (the applier, leases, heartbeats) makes no span.
  expect(spans.filter((s) => !s.parentSpanContext).map((s) => s.name).filter((n) => n.includes('.'))).toEqual([]);
});

it('a cold check at the default consistency is one decision-cache read and one index query; the same check again none', async () => {
  await svc.http('POST', '/authorization/relations', { body: { subject: 'User:cold', relation: 'viewer', resource: 'Doc:cold' } });
  /** The check's round trips to the decision cache and the index, in the order they started. */
  const roundTrips = async (more = 0) => {
    const caller = callerSpan();
    const r = await svc.http('GET', '/authorization/permissions/can?subject=User:cold&permission=read&resource=Doc:cold', {
      headers: { ...svc.asAdmin, traceparent: caller.header },
    });
    expect(r.body.allowed).toBe(true);
    let spans = await traceOf(caller.trace);
    const calls = () => spans.filter((s) => /^(decisionStore|index)\./.test(s.name));
    for (let i = 0; i < 100 && calls().length < 2 + more; i++) {
      await new Promise((res) => setTimeout(res, 20));
      spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === caller.trace);
    }
    print('check at minimize_latency, trace ' + caller.trace, spans);
    return calls().sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]).map((s) => s.name);
  };
  // Then the decision is stored for the next caller (test/unit/decision-cache-puts.test.ts: the answer does not wait).
  expect(await roundTrips(1)).toEqual(['decisionStore.lookup', 'index.check', 'decisionStore.put']);
  // This process's own cache answers a repeat, with no round trip.
  expect(await roundTrips(-2)).toEqual([]);
});
