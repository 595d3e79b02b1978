// gRPC server reflection as grpcurl (built from the Go module proxy) sees it: list, describe, and every method called through it alone.
import { execFile } from 'node:child_process';
import { GRPC_METHODS } from '../../src/surfaces/grpc/methods.js';
import { mapEntryName } from '../../src/surfaces/grpc/reflection.js';
import { eventually } from '../support/eventually.js';
import { grpcurl } from '../support/go-tool.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
let bin: string;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}
/** grpcurl against the service, asynchronously: the service runs in this process and must keep answering. */
const run = (args: string[]) =>
  new Promise<Run>((resolve) => {
    execFile(bin, ['-plaintext', ...args], { timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
const called = new Set<string>();
/** One call through reflection alone (no .proto given), with the masterkey; the reply as JSON documents. */
async function call(method: string, body: unknown, extra: string[] = []): Promise<Record<string, any>[]> { // eslint-disable-line @typescript-eslint/no-explicit-any
  called.add(method);
  const r = await run(['-H', `masterkey: ${svc.config.MASTER_KEY}`, '-d', JSON.stringify(body), ...extra, svc.grpc, `authzgraph.v1.AuthzGraph/${method}`]);
  if (r.code !== 0) throw new Error(`${method}: exit ${r.code}: ${r.stderr}`);
  // grpcurl prints each message as indented JSON, one after the other.
  return r.stdout.trim() === '' ? [] : r.stdout.trim().split(/\n(?=\{)/).map((s) => JSON.parse(s));
}

beforeAll(async () => {
  bin = grpcurl();
  svc = await startService();
}, 600_000);
afterAll(async () => {
  await svc?.stop();
});

describe('gRPC reflection through grpcurl', () => {
  it('names map entries as protoc does', () => {
    expect(mapEntryName('relations')).toBe('RelationsEntry');
    expect(mapEntryName('by_type_name')).toBe('ByTypeNameEntry');
  });

  it('lists the service, the health service and reflection', async () => {
    const r = await run([svc.grpc, 'list']);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')).toEqual(expect.arrayContaining(['authzgraph.v1.AuthzGraph', 'grpc.health.v1.Health']));
  });

  it('describes the service and a message with map fields', async () => {
    const service = await run([svc.grpc, 'describe', 'authzgraph.v1.AuthzGraph']);
    expect(service.stderr).toBe('');
    expect(service.code).toBe(0);
    for (const name of Object.keys(GRPC_METHODS)) expect(service.stdout).toContain(`rpc ${name} (`);
    const message = await run([svc.grpc, 'describe', 'authzgraph.v1.ResourceDefinition']);
    expect(message.stderr).toBe('');
    expect(message.stdout).toContain('map<string, .authzgraph.v1.Names> relations = 3;');
    const health = await run([svc.grpc, 'describe', 'grpc.health.v1.Health']);
    expect(health.stdout).toContain('rpc Check (');
  });

  it('calls every method with JSON built from reflection alone', async () => {
    const maps = { relations: { viewer: { names: ['User'] } }, permissions: { view: { names: ['viewer'] } } };
    const [created] = await call('CreateResourceDefinition', { name: 'Shelf', ...maps });
    expect(created).toMatchObject({ status: 'processed', resource_definition: { name: 'Shelf', relations: { viewer: { names: ['User'] } } } });
    const [updated] = await call('UpdateResourceDefinition', { name: 'Shelf', relations: { viewer: { names: ['User', 'Team'] } }, permissions: maps.permissions });
    expect(updated!.resource_definition.relations.viewer.names).toEqual(['User', 'Team']);
    expect((await call('GetResourceDefinition', { id: 'Shelf' }))[0]!.permissions).toEqual({ view: { names: ['viewer'] } });
    expect((await call('ListResourceDefinitions', { search: 'shelf' }))[0]!.count).toBe('1'); // int64 is a string in proto JSON

    const [one] = await call('CreateRelation', { subject: 'User:ann', relation: 'viewer', resource: 'Shelf:1' });
    expect(one).toMatchObject({ created: true, relation: { computed_tuple: 'User:ann#viewer@Shelf:1' } });
    expect((await call('CreateRelations', { subject: 'User:bob', relation: 'viewer', resources: ['Shelf:2', 'Shelf:3'] }))[0]!.created).toBe(2);
    const [written] = await call('WriteRelations', { updates: [{ operation: 'OPERATION_CREATE', subject: 'User:cy', relation: 'viewer', resource: 'Shelf:1' }] });
    expect(written!.created).toBe(1);
    const fresh = { consistency: 'AT_LEAST_AS_FRESH', revision: written!.revision };
    // A bulk write is indexed after its answer; on a busy machine that may take longer than one read waits (503).
    await eventually(() => call('ReadRelations', { resource_type: 'Shelf', ...fresh }).then(([r]) => String(r!.count), () => null), '4', 60_000);

    expect((await call('Can', { subject: 'User:ann', permission: 'view', resource: 'Shelf:1', ...fresh }))[0]).toEqual({ allowed: true });
    const [bulk] = await call('CheckBulk', {
      items: [{ subject: 'User:bob', permission: 'view', resource: 'Shelf:2' }, { subject: 'User:ann', permission: 'view', resource: 'Shelf:2' }],
      ...fresh,
    });
    expect(bulk!.results).toEqual([{ allowed: true }, {}]); // proto JSON leaves false out
    expect((await call('Evaluate', { subject: 'User:ann', permission: 'view', resource: 'Shelf:1' }))[0]!.paths).toEqual(['User:ann#viewer@Shelf:1']);
    expect((await call('LookupResources', { subject: 'User:bob', permission: 'view', resource_type: 'Shelf', ...fresh })).map((m) => m.object)).toEqual(['Shelf:2', 'Shelf:3']);
    expect((await call('LookupSubjects', { permission: 'view', resource: 'Shelf:1', subject_type: 'User', ...fresh })).map((m) => m.subject).sort()).toEqual(['User:ann',
      'User:cy']);

    expect((await call('GrantPermission', { subject: 'User:dee', permission: 'view', resource: 'Shelf:9' }))[0]!.created).toBe(true);
    expect((await call('RevokePermission', { subject: 'User:dee', permission: 'view', resource: 'Shelf:9' }))[0]!.revision).toMatch(/^\d+$/);
    expect((await call('DeleteRelation', { id: one!.relation.id }))[0]!.deleted.computed_tuple).toBe('User:ann#viewer@Shelf:1');

    expect((await call('CreateAccessView', { name: 'bobs', subject: 'User:bob', permission: 'view', resource_type: 'Shelf' }))[0]!.count).toBe('2');
    expect((await call('ListAccessViews', {}))[0]!.count).toBe('1');
    expect((await call('ReadAccessView', { name: 'bobs', skip: 1, limit: 5 }))[0]!.objects).toEqual(['Shelf:3']);
    expect((await call('RefreshAccessView', { name: 'bobs' }))[0]!.name).toBe('bobs');
    expect((await call('DeleteAccessView', { name: 'bobs' }))[0]).toEqual({ deleted: 'bobs' });

    // Watch is live: it sends the feed so far, then waits; the call ends at grpcurl's deadline.
    called.add('Watch');
    const watch = await run(['-H', `masterkey: ${svc.config.MASTER_KEY}`, '-max-time', '3', '-d', '{"after_revision": 0}', svc.grpc, 'authzgraph.v1.AuthzGraph/Watch']);
    expect(watch.stderr).toContain('DeadlineExceeded');
    expect(watch.stdout).toContain('"tuple": "User:bob#viewer@Shelf:2"');

    await call('DeleteRelation', { id: 'no-such-id' }).then(() => {
      throw new Error('not refused');
    }, (e: Error) => expect(e.message).toMatch(/NotFound|InvalidArgument/));
    expect((await call('DeleteResourceDefinition', { id: 'Shelf' }))[0]!.deleted.name).toBe('Shelf');
    expect([...called].sort()).toEqual(Object.keys(GRPC_METHODS).sort());
  });

  it('answers the health service through reflection', async () => {
    const r = await run(['-d', '{"service": "authzgraph.v1.AuthzGraph"}', svc.grpc, 'grpc.health.v1.Health/Check']);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ status: 'SERVING' });
  });
});
