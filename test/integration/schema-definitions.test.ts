// The definition an authorization-enabled schema registers is not replaced by a name clash: without the next version
// every writer (REST POST and PATCH, MCP, gRPC, a state import without the schema) gets 409 naming the schema, and
// the schema's documents stay with their owners; with the version, or with the schema in the same import, it is replaced.
// A DELETE needs the version as well, and so do built-in and module types (409 MODULE_DEFINITION).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AuthzGraphClient, AuthzGraphError } from '../../src/client/grpc.js';
import { schemaDefinition } from '../../src/engine/model.js';
import { clientCall } from '../support/client-account.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

const client = (method: string, path: string, token?: string, body?: unknown) => clientCall(svc, method, path, token, body);
/** The README's SDK example's definition, which clashed with its curl walkthrough's schema. */
const other = { name: 'Doc', relations: { viewer: ['User'] }, permissions: { view: ['viewer'] } };

/** Ann owns one document of schema Doc; the answer is what she and the definition look like now. */
async function setUp() {
  const schema = { name: 'Doc', fields: { title: 'String' }, serviceOptions: { authorization: { enabled: true } } };
  expect((await svc.http('POST', '/database/schemas', { body: schema })).status).toBe(201);
  expect((await client('POST', '/authentication/local/new', undefined, { email: 'ann@x.io', password: 'long password' })).status).toBe(201);
  const ann = (await client('POST', '/authentication/local', undefined, { email: 'ann@x.io', password: 'long password' })).body.accessToken as string;
  const doc = await client('POST', '/database/Doc', ann, { title: 'Plan' });
  expect(doc.status).toBe(201);
  return { ann, id: doc.body._id as string };
}

const expectRefused = (r: { status: number; body: { code: string; message: string; details: unknown[] } }, path = 'version') => {
  expect(r.status).toBe(409);
  expect(r.body.code).toBe('SCHEMA_DEFINITION');
  expect(r.body.message).toContain('schema Doc');
  expect(r.body.message).toContain('send version 1 (the current version is 0)');
  expect(r.body.details).toEqual([expect.objectContaining({ path, schema: 'Doc', version: 0 })]);
};

it("refuses replacing a schema's definition without its version on every writer; the documents stay their owners'", async () => {
  const { ann, id } = await setUp();
  const before = (await svc.http('GET', '/authorization/resources/Doc')).body;

  expectRefused(await svc.http('POST', '/authorization/resources', { body: other }));
  expectRefused(await svc.http('PATCH', '/authorization/resources/Doc', { body: { relations: other.relations, permissions: other.permissions } }));

  const token = (await svc.http('POST', '/api-tokens', { body: { name: 'schema definitions' } })).body.token as string;
  const mcp = new Client({ name: 'test-agent', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${svc.admin}/mcp?modules=authorization`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  try {
    const r = await mcp.callTool({ name: 'post_authorization_resources', arguments: other });
    expect(r.isError).toBe(true);
    expectRefused({ status: 409, body: JSON.parse((r.content as Array<{ text: string }>)[0]!.text) });
  } finally {
    await mcp.close();
  }

  const grpc = new AuthzGraphClient({ address: svc.grpc, token });
  try {
    const refused = await grpc.createResourceDefinition(other).then(() => null, (e: unknown) => e);
    expect(refused).toBeInstanceOf(AuthzGraphError);
    expect((refused as AuthzGraphError).code).toBe('SCHEMA_DEFINITION');
    expect((refused as AuthzGraphError).message).toContain('schema Doc');
  } finally {
    grpc.raw.close();
  }

  // A state import that replaces it without carrying the schema is refused too, its dry run as well.
  for (const query of ['', '?dryRun=true']) {
    const r = await svc.http('POST', `/state/import${query}`, { body: { version: 1, resources: [other] } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('SCHEMA_DEFINITION');
    expect(r.body.details).toEqual([expect.objectContaining({ path: 'resources.0', schema: 'Doc', version: 0 })]);
    expect(r.body.details[0].message).toContain('carry schema Doc in the same document');
  }

  // Nothing changed: the definition is the schema's, and Ann still lists, reads and edits her document.
  expect((await svc.http('GET', '/authorization/resources/Doc')).body).toEqual(before);
  const list = await client('GET', '/database/Doc', ann);
  expect(list.body).toMatchObject({ count: 1, documents: [expect.objectContaining({ _id: id })] });
  expect((await client('PATCH', `/database/Doc/${id}`, ann, { title: 'Mine' })).status).toBe(200);

  // Same content without a version is no replacement; the next version replaces it on purpose.
  const same = { name: 'Doc', relations: before.relations, permissions: before.permissions };
  expect((await svc.http('POST', '/authorization/resources', { body: same })).status).toBe(200);
  const current = (await svc.http('GET', '/authorization/resources/Doc')).body.version as number;
  const replaced = await svc.http('POST', '/authorization/resources', { body: { ...other, version: current + 1 } });
  expect(replaced.status).toBe(200);
  expect(replaced.body.resourceDefinition).toMatchObject({ relations: other.relations, version: current + 1 });
}, 120_000);

it('a state import that carries the schema too replaces its definition', async () => {
  await svc.stop();
  svc = await startService();
  await setUp();
  const schemas = (await svc.http('GET', '/database/schemas/export')).body.schemas;
  const dry = await svc.http('POST', '/state/import?dryRun=true', { body: { version: 1, schemas, resources: [other] } });
  expect(dry.status).toBe(200);
  expect(dry.body.resources.updated).toEqual(['Doc']);
  const done = await svc.http('POST', '/state/import', { body: { version: 1, schemas, resources: [other] } });
  expect(done.status).toBe(200);
  expect((await svc.http('GET', '/authorization/resources/Doc')).body.relations).toEqual(other.relations);
}, 120_000);

it("deleting a schema's definition needs its version, and with none stored a create of other content still does", async () => {
  await svc.stop();
  svc = await startService();
  const { ann, id } = await setUp();
  const refused = await svc.http('DELETE', '/authorization/resources/Doc');
  expect(refused.status).toBe(409);
  expect(refused.body.code).toBe('SCHEMA_DEFINITION');
  expect(refused.body.message).toContain('DELETE /authorization/resources/Doc?version=0');
  expect(refused.body.details).toEqual([expect.objectContaining({ schema: 'Doc', version: 0 })]);
  expect((await svc.http('DELETE', '/authorization/resources/Doc?version=3')).body.code).toBe('VERSION_CONFLICT');
  expect((await client('GET', '/database/Doc', ann)).body).toMatchObject({ count: 1, documents: [expect.objectContaining({ _id: id })] });

  // Deleted on purpose: then a create of other content without a version is refused although nothing is stored.
  expect((await svc.http('DELETE', '/authorization/resources/Doc?version=0')).status).toBe(200);
  const create = await svc.http('POST', '/authorization/resources', { body: other });
  expect(create.status).toBe(409);
  expect(create.body.code).toBe('SCHEMA_DEFINITION');
  expect(create.body.details).toEqual([expect.objectContaining({ schema: 'Doc', message: 'send a version (0 or more) to define it' })]);
  expect((await svc.http('GET', '/authorization/resources/Doc')).status).toBe(404);
  // The schema's own definition needs no version (it is what the schema registers); another, with one, is taken.
  expect((await svc.http('POST', '/authorization/resources', { body: schemaDefinition('Doc') })).status).toBe(200);
}, 120_000);

it('the same definition with its keys and entries in another order is the same content, with or without its version', async () => {
  await svc.stop();
  svc = await startService();
  await setUp();
  const def = (await svc.http('GET', '/authorization/resources/Doc')).body as { relations: Record<string, string[]>; permissions: Record<string, string[]>; version: number };
  const flip = (m: Record<string, string[]>) => Object.fromEntries(Object.entries(m).reverse().map(([k, v]) => [k, [...v].reverse()]));
  const reordered = { name: 'Doc', relations: flip(def.relations), permissions: flip(def.permissions) };
  const unversioned = await svc.http('POST', '/authorization/resources', { body: reordered });
  expect(unversioned.status).toBe(200);
  const current = (await svc.http('GET', '/authorization/resources/Doc')).body.version as number;
  const same = await svc.http('POST', '/authorization/resources', { body: { ...reordered, version: current } });
  expect(same.status).toBe(200);
  expect(same.body.status).toBe('acknowledged');
}, 120_000);

it('built-in and module types are not replaced or deleted by a name clash: 409 MODULE_DEFINITION naming the module', async () => {
  for (const [name, module] of [['File', 'storage'], ['Team', 'teams'], ['ChatRoom', 'chat'], ['StoragePublic', 'storage']] as const) {
    const before = await svc.http('GET', `/authorization/resources/${name}`);
    const r = await svc.http('POST', '/authorization/resources', { body: { ...other, name } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('MODULE_DEFINITION');
    expect(r.body.message).toContain(`the ${module} module's resource type`);
    expect(r.body.details).toEqual([expect.objectContaining({ module })]);
    expect(await svc.http('GET', `/authorization/resources/${name}`)).toMatchObject({ status: before.status, body: before.body });
    const imported = await svc.http('POST', '/state/import?dryRun=true', { body: { version: 1, resources: [{ ...other, name }] } });
    expect(imported.status).toBe(409);
    expect(imported.body.details).toEqual([expect.objectContaining({ code: 'MODULE_DEFINITION', module, path: 'resources.0' })]);
  }
  // Registered as the storage module does it (version 0, the module's content): then a DELETE needs the version too.
  expect((await svc.http('POST', '/authorization/resources', { body: { ...schemaDefinition('File'), version: 0 } })).status).toBe(200);
  const del = await svc.http('DELETE', '/authorization/resources/File');
  expect(del.status).toBe(409);
  expect(del.body.code).toBe('MODULE_DEFINITION');
  expect(del.body.message).toContain('DELETE /authorization/resources/File?version=0');
  // With the version the operator replaces it knowingly.
  const team = (await svc.http('GET', '/authorization/resources/Team')).body;
  const patched = { ...team.permissions, audit: ['owner'] };
  expect((await svc.http('POST', '/authorization/resources', { body: { name: 'Team', relations: team.relations, permissions: patched, version: team.version + 1 } })).body.status)
    .toBe('processed');
}, 120_000);
