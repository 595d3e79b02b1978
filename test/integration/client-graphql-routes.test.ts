// The client GraphQL's fields derived from the registry, through a real GraphQL client with a user token: chat, storage,
// notifications and custom endpoints as on REST, the same validation and rate limits, and no client route left out.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientError, GraphQLClient, gql } from 'graphql-request';
import { eventually } from '../support/eventually.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
let dir: string;
const LIMITS = JSON.stringify({ routes: {
  'POST /authentication/local/new': { windowMs: 60_000, max: 1000 },
  'GET /authentication/teams': { windowMs: 60_000, max: 3 },
} });
type Account = { id: string; token: string; gql: GraphQLClient };
let alice: Account;
let bob: Account;

const rest = (method: string, path: string, token?: string, body?: unknown) =>
  svc.http(method, `${svc.client}${path}`, { body, headers: token ? { authorization: `Bearer ${token}` } : {} });

async function account(email: string): Promise<Account> {
  expect((await rest('POST', '/authentication/local/new', undefined, { email, password: 'correct horse' })).status).toBe(201);
  const r = await rest('POST', '/authentication/local', undefined, { email, password: 'correct horse' });
  return { id: r.body.userId, token: r.body.accessToken, gql: new GraphQLClient(`${svc.client}/graphql`, { headers: { authorization: `Bearer ${r.body.accessToken}` } }) };
}

/** The error codes and statuses (as REST would answer) of a GraphQL request that failed. */
async function failure(p: Promise<unknown>): Promise<{ codes: string[]; statuses: number[] }> {
  try {
    await p;
  } catch (e) {
    if (!(e instanceof ClientError)) throw e;
    const errors = e.response.errors ?? [];
    return { codes: errors.map((x) => String(x.extensions?.code)), statuses: errors.map((x) => Number(x.extensions?.status)) };
  }
  throw new Error('expected the request to fail');
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'authz-gql-storage-'));
  svc = await startService({ ROUTER_RATE_LIMITS: LIMITS });
  expect((await svc.http('PATCH', '/config/storage', { body: { dir } })).status).toBe(200);
  [alice, bob] = await Promise.all([account('alice@gql-routes.io'), account('bob@gql-routes.io')]);
}, 120_000);
afterAll(async () => {
  await svc?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("client GraphQL fields from the registry: one per route, and what each module's fields do", () => {
  it('has a field for every client route that answers JSON, named by its id; only the byte routes are left out', async () => {
    const intro = await alice.gql.request<{ __schema: { queryType: { fields: Array<{ name: string }> }; mutationType: { fields: Array<{ name: string }> } } }>(
      gql`{ __schema { queryType { fields { name } } mutationType { fields { name } } } }`,
    );
    const queries = new Set(intro.__schema.queryType.fields.map((f) => f.name));
    const mutations = new Set(intro.__schema.mutationType.fields.map((f) => f.name));
    const client = svc.app.registry.of('client');
    const json = client.filter((r) => (r.http.produces ?? ['application/json']).every((t) => t === 'application/json'));
    const missing = json.filter((r) => !(r.http.method === 'get' ? queries : mutations).has(r.id)).map((r) => r.rateKey);
    expect(missing).toEqual([]);
    expect(client.filter((r) => !json.includes(r)).map((r) => r.id).sort())
      .toEqual(['get_docs', 'get_storage_file_data_id', 'get_storage_public_id', 'get_storage_signed_id']);
    for (const id of ['get_docs', 'get_storage_file_data_id']) expect(queries.has(id)).toBe(false);
    // The typed fields apps already use are still there.
    for (const name of ['authorizationCheck', 'me']) expect(queries.has(name)).toBe(true);
  });

  it('creates a chat room, lists it, and sends and reads a message, with the authorization of REST', async () => {
    const made = await alice.gql.request<{ post_chat_rooms: { _id: string; participants: string[] } }>(
      gql`mutation ($p: JSON) { post_chat_rooms(name: "planning", participants: $p) }`,
      { p: [bob.id] },
    );
    const room = made.post_chat_rooms._id;
    expect(made.post_chat_rooms.participants).toContain(bob.id);
    const listed = await alice.gql.request<{ get_chat_rooms: { count: number; rooms: Array<{ _id: string; name: string }> } }>(gql`{ get_chat_rooms(limit: 10) }`);
    expect(listed.get_chat_rooms.rooms.map((r) => [r._id, r.name])).toEqual([[room, 'planning']]);
    expect(listed.get_chat_rooms).toEqual((await rest('GET', '/chat/rooms?limit=10', alice.token)).body);
    await alice.gql.request(gql`mutation ($room: JSON) { post_chat_messages(roomId: $room, message: "hello") }`, { room });
    const read = await bob.gql.request<{ get_chat_messages: { messages: Array<{ message: string; senderId: string }> } }>(
      gql`query ($room: JSON) { get_chat_messages(roomId: $room) }`,
      { room },
    );
    expect(read.get_chat_messages.messages.map((m) => [m.message, m.senderId])).toEqual([['hello', alice.id]]);
    // Bob is a participant, not the owner: he cannot delete the room, by GraphQL as by REST.
    expect((await failure(bob.gql.request(gql`mutation ($room: JSON) { delete_chat_rooms_roomid(roomId: $room) }`, { room }))).codes).toEqual(['FORBIDDEN']);
    expect((await rest('GET', `/chat/rooms/${room}`, alice.token)).status).toBe(200);
  });

  it('uploads a file, reads and renames its record, and REST serves the bytes it was given', async () => {
    const content = Buffer.from('graphql upload, small');
    const up = await alice.gql.request<{ post_storage_upload: { _id: string; size: number; name: string } }>(
      gql`mutation ($data: JSON) { post_storage_upload(name: "note.txt", data: $data, mimeType: "text/plain") }`,
      { data: content.toString('base64') },
    );
    const id = up.post_storage_upload._id;
    expect(up.post_storage_upload).toMatchObject({ name: 'note.txt', size: content.length });
    const record = await alice.gql.request<{ get_storage_file_id: unknown }>(gql`query ($id: JSON) { get_storage_file_id(id: $id) }`, { id });
    expect(record.get_storage_file_id).toEqual((await rest('GET', `/storage/file/${id}`, alice.token)).body);
    const files = await alice.gql.request<{ get_storage_files: { count: number } }>(gql`{ get_storage_files }`);
    expect(files.get_storage_files.count).toBe(1);
    const renamed = await alice.gql.request<{ patch_storage_upload_id: { name: string; size: number } }>(
      gql`mutation ($id: JSON) { patch_storage_upload_id(id: $id, name: "renamed.txt") }`,
      { id },
    );
    expect(renamed.patch_storage_upload_id).toMatchObject({ name: 'renamed.txt', size: content.length });
    const bytes = await fetch(`${svc.client}/storage/file/data/${id}`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(Buffer.from(await bytes.arrayBuffer())).toEqual(content);
    // Not Bob's to read.
    expect((await failure(bob.gql.request(gql`query ($id: JSON) { get_storage_file_id(id: $id) }`, { id }))).codes).toEqual(['NOT_FOUND']);
  });
});

describe('client GraphQL fields from the registry: notifications and custom endpoints', () => {
  it('lists notifications and marks them read', async () => {
    expect((await svc.http('POST', '/communications/push', { body: { userId: alice.id, title: 'Hi', body: 'from GraphQL test' } })).status).toBe(201);
    const unread = async () => JSON.stringify((await alice.gql.request<{ get_notifications: { unread: number } }>(gql`{ get_notifications }`)).get_notifications.unread);
    await eventually(unread, '1', 20_000);
    const list = await alice.gql.request<{ get_notifications: { notifications: Array<{ title: string; read: boolean }> } }>(gql`{ get_notifications(unread: "true") }`);
    expect(list.get_notifications.notifications.map((n) => [n.title, n.read])).toEqual([['Hi', false]]);
    expect((await alice.gql.request<{ patch_notifications: unknown }>(gql`mutation { patch_notifications(all: true) }`)).patch_notifications).toEqual({ updated: 1 });
    expect(await unread()).toBe('0');
    expect((await bob.gql.request<{ get_notifications: { count: number } }>(gql`{ get_notifications }`)).get_notifications.count).toBe(0);
  });

  it('calls a custom endpoint', async () => {
    expect((await svc.http('POST', '/database/schemas', { body: { name: 'Ticket', fields: { title: 'String', status: 'String' } } })).status).toBe(201);
    expect((await svc.http('POST', '/database/customEndpoints', { body: {
      name: 'openTickets',
      operation: 'find',
      schema: 'Ticket',
      inputs: { status: { type: 'String', required: true, from: 'query' } },
      filter: { status: { input: 'status' } },
    } })).status).toBe(201);
    for (const [title, status] of [['one', 'open'], ['two', 'closed']]) {
      await alice.gql.request(gql`mutation ($body: JSON) { post_database_schema(schema: "Ticket", body: $body) }`, { body: { title, status } });
    }
    const call = gql`query ($q: JSON) { get_database_function_name(name: "openTickets", query: $q) }`;
    const open = await alice.gql.request<{ get_database_function_name: { count: number; documents: Array<{ title: string }> } }>(call, { q: { status: 'open' } });
    expect(open.get_database_function_name.documents.map((d) => d.title)).toEqual(['one']);
    expect((await failure(alice.gql.request(call, { q: {} }))).codes).toEqual(['VALIDATION_FAILED']);
    expect((await failure(alice.gql.request(gql`{ get_database_function_name(name: "noSuchEndpoint") }`))).codes).toEqual(['FUNCTION_NOT_FOUND']);
  });
});

describe('client GraphQL fields from the registry: refusals and limits', () => {
  it('refuses bad input with the REST code and changes nothing', async () => {
    const count = async () => (await rest('GET', '/chat/rooms', bob.token)).body.count as number;
    const before = await count();
    const create = gql`mutation ($name: JSON, $participants: JSON) { post_chat_rooms(name: $name, participants: $participants) }`;
    for (const vars of <Array<Record<string, unknown>>> [{ name: '' }, { name: 'x', participants: 'not a list' }, { name: { $ne: null } }, { name: 'x'.repeat(201) }, { name: 'x',
      participants: ['a\u0000b'] }]) {
      const r = await failure(bob.gql.request(create, vars));
      expect(r.codes).toEqual(['VALIDATION_FAILED']);
      expect(r.statuses).toEqual([400]);
    }
    for (const doc of [gql`mutation { post_chat_rooms(name: "x", owner: "User:someone") }`, gql`{ get_chat_rooms(limit: 0) }`]) {
      const r = await failure(bob.gql.request(doc));
      expect(r.codes).toEqual(['VALIDATION_FAILED']);
      expect(r.statuses).toEqual([400]);
    }
    expect(await count()).toBe(before);
    // An upload is read as REST reads its JSON body: without a name, with bad base64 or an unknown argument, no file.
    const files = async () => (await rest('GET', '/storage/files', bob.token)).body.count as number;
    const upload = gql`mutation ($name: JSON, $data: JSON) { post_storage_upload(name: $name, data: $data) }`;
    for (const vars of <Array<Record<string, unknown>>> [{ data: 'aGk=' }, { name: 'x', data: 'not base64!' }, { name: { a: 1 }, data: 'aGk=' }]) {
      expect((await failure(bob.gql.request(upload, vars))).statuses[0]).toBe(400);
    }
    expect((await failure(bob.gql.request(gql`mutation { post_storage_upload(name: "x", data: "aGk=", owner: "me") }`))).codes).toEqual(['VALIDATION_FAILED']);
    expect(await files()).toBe(0);
  });

  it('takes one upload field per request: one variable reused by many aliases is refused whole (400), no file written', async () => {
    const carol = await account('carol@gql-routes.io');
    const files = async () => (await rest('GET', '/storage/files', carol.token)).body.count as number;
    const aliases = Array.from({ length: 3 }, (_, i) => `u${i}: post_storage_upload(name: "f${i}.bin", data: $d)`).join(' ');
    const res = await fetch(`${svc.client}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${carol.token}` },
      body: JSON.stringify({ query: `mutation ($d: JSON) { ${aliases} }`, variables: { d: Buffer.from('the same bytes thrice').toString('base64') } }),
    });
    const body = await res.json() as { data?: unknown; errors: Array<{ message: string; extensions: { code: string; status: number } }> };
    expect(res.status).toBe(400);
    expect(body.data).toBeUndefined();
    expect(body.errors).toEqual([expect.objectContaining({
      message: 'At most one upload field (post_storage_upload and the like) per GraphQL request; send the others in requests of their own',
      extensions: { code: 'VALIDATION_FAILED', status: 400 },
    })]);
    // The upload and its rename counted together: a PATCH upload is a streamed body too.
    const mixed = `mutation ($d: JSON) { a: post_storage_upload(name: "a.bin", data: $d) b: patch_storage_upload_id(id: "x", data: $d) }`;
    expect((await failure(carol.gql.request(mixed, { d: 'aGk=' }))).codes).toEqual(['VALIDATION_FAILED']);
    expect(await files()).toBe(0);
    await carol.gql.request(gql`mutation ($d: JSON) { post_storage_upload(name: "one.bin", data: $d) }`, { d: 'aGk=' });
    expect(await files()).toBe(1);
  });

  it('charges each derived field the rate limit of its route, shared with REST', async () => {
    const fields = Array.from({ length: 4 }, (_, i) => `t${i}: get_authentication_teams`).join(' ');
    const r = await failure(bob.gql.request(`{ ${fields} }`));
    expect(r.codes).toContain('RATE_LIMITED');
    // Counted per address, as REST counts it: the REST route is spent too.
    expect((await rest('GET', '/authentication/teams', bob.token)).status).toBe(429);
  });
});
