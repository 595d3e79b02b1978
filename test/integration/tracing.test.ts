// Tracing on (an in-memory exporter stands for the OTLP endpoint): a check through REST and one through gRPC, each
// sent with a W3C traceparent, become a span named by the route id, child of the caller's span, with the store calls
// it made as its children. The traces are printed.
import { Metadata, credentials, loadPackageDefinition, type Client, type GrpcObject, type ServiceClientConstructor, type ServiceError } from '@grpc/grpc-js';
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
afterAll(async () => { await svc?.stop(); });

/** A caller's span: a trace id and a span id of its own, sampled. */
function callerSpan() {
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join('');
  const trace = hex(32);
  const span = hex(16);
  return { trace, span, header: `00-${trace}-${span}-01` };
}

/** Waits for the route's span in trace `traceId`, then gives the whole trace. */
async function traceOf(traceId: string): Promise<ReadableSpan[]> {
  for (let i = 0; i < 100; i++) {
    const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    if (spans.some((s) => s.name === CAN)) return spans;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no ${CAN} span in trace ${traceId}`);
}

const ms = (s: ReadableSpan) => s.duration[0] * 1e3 + s.duration[1] / 1e6;
function print(title: string, spans: ReadableSpan[]): void {
  const rows = spans.map((s) => `  ${s.name.padEnd(44)} span ${s.spanContext().spanId}  parent ${s.parentSpanContext?.spanId ?? '(none)'}  ${ms(s).toFixed(2)} ms`);
  console.log(`${title}\n${rows.join('\n')}`);
}

function expectCallTrace(spans: ReadableSpan[], caller: { span: string }, transport: string): void {
  const call = spans.find((s) => s.name === CAN)!;
  expect(call.parentSpanContext?.spanId).toBe(caller.span);
  expect(call.attributes['authz.transport']).toBe(transport);
  expect(call.attributes['authz.status']).toBe(200);
  const children = spans.filter((s) => s.parentSpanContext?.spanId === call.spanContext().spanId);
  // A fully consistent check reads the revision and asks the index: at least one store call, each a child span.
  expect(children.length).toBeGreaterThan(0);
  for (const c of children) expect(c.name).toMatch(/^[a-zA-Z]+(\.[a-zA-Z]+)+$/);
}

it('a check through REST is a span under the caller\'s traceparent, with its store calls as children', async () => {
  const caller = callerSpan();
  const r = await svc.http('GET', '/authorization/permissions/can?subject=User:t&permission=read&resource=Doc:traced&consistency=fully_consistent',
    { headers: { ...svc.asAdmin, traceparent: caller.header } });
  expect(r.body.allowed).toBe(true);
  const spans = await traceOf(caller.trace);
  print('REST check, trace ' + caller.trace, spans);
  expectCallTrace(spans, caller, 'rest');
});

it('a check through gRPC takes the traceparent from the call\'s metadata', async () => {
  const pkg = loadPackageDefinition(loadDefinition()) as unknown as { authzgraph: { v1: GrpcObject } };
  const Ctor = pkg.authzgraph.v1.AuthzGraph as ServiceClientConstructor;
  const client = new Ctor(svc.grpc, credentials.createInsecure()) as Client & Record<string, (req: unknown, md: Metadata, cb: (e: ServiceError | null, r: { allowed: boolean }) => void) => void>;
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
