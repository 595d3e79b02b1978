// The pipeline's limits against a hostile caller: id lengths, input shape, GraphQL documents, failed admin
// authentication per address (API tokens stored as digests: api-token-digests.test.ts, on the real MongoDB).
import { connect } from 'node:net';
import WebSocket from 'ws';
import { AuthzGraphClient, AuthzGraphError } from '../../src/client/grpc.js';
import { clientCall } from '../support/client-account.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
const LIMITS = JSON.stringify({ routes: { 'GET /authentication/user': { windowMs: 60_000, max: 4 }, 'POST /realtime': { windowMs: 60_000, max: 3 } } });
const folder = { name: 'Folder', relations: { viewer: ['User'] }, permissions: { view: ['viewer'] } };

beforeAll(async () => {
  svc = await startService({ ROUTER_RATE_LIMITS: LIMITS, ADMIN_AUTH_FAILURES_PER_MINUTE: '5', GRAPHQL_MAX_ALIASES: '10' });
  expect((await svc.http('POST', '/authorization/resources', { body: folder })).status).toBe(200);
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

const client = (method: string, path: string, token?: string, body?: unknown) => clientCall(svc, method, path, token, body);

async function userToken(email: string): Promise<string> {
  expect((await client('POST', '/authentication/local/new', undefined, { email, password: 'correct horse' })).status).toBe(201);
  return (await client('POST', '/authentication/local', undefined, { email, password: 'correct horse' })).body.accessToken as string;
}

const gql = (base: string, headers: Record<string, string>, query: string) => svc.http('POST', `${base}/graphql`, { body: { query }, headers });

describe('ids and input shape', () => {
  const long = `Folder:${'x'.repeat(1025)}`;

  it('refuses an id longer than 1,024 bytes on the client check, admin writes and checks, before any store sees it', async () => {
    const token = await userToken('ids@example.com');
    const check = await client('GET', `/authorization/check?action=view&resource=${encodeURIComponent(long)}`, token);
    expect(check.status).toBe(400);
    expect(check.body).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(check.text).toContain('1024 bytes');
    const write = await svc.http('POST', '/authorization/relations', { body: { subject: 'User:u', relation: 'viewer', resource: long } });
    expect(write.status).toBe(400);
    const can = await svc.http('GET', `/authorization/permissions/can?subject=User:u&permission=view&resource=${encodeURIComponent(long)}`);
    expect(can.status).toBe(400);
    // Multi-byte characters count as bytes: 513 of them are 1,026 bytes although the string is shorter than 1,024.
    const wide = await svc.http('POST', '/authorization/relations', { body: { subject: 'User:u', relation: 'viewer', resource: `Folder:${'é'.repeat(513)}` } });
    expect(wide.status).toBe(400);
    const fits = await svc.http('POST', '/authorization/relations', { body: { subject: 'User:u', relation: 'viewer', resource: `Folder:${'x'.repeat(1024)}` } });
    expect(fits.status).toBe(201);
    expect((await svc.http('GET', '/state/export?tuples=true')).text).not.toContain('x'.repeat(1025));
  });

  it('refuses names over 128 characters', async () => {
    const r = await svc.http('POST', '/authorization/resources', { body: { name: `F${'o'.repeat(128)}`, relations: {}, permissions: {} } });
    expect(r.status).toBe(400);
  });

  it('answers 413 naming the place for a string, array, object or nesting past its limit, on REST, GraphQL and gRPC', async () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 40; i++) deep = { d: deep };
    const nested = await svc.http('PATCH', '/config/core', { body: { x: deep } });
    expect(nested.status).toBe(413);
    expect(nested.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
    expect(nested.body.message).toMatch(/^body\.x(\.d)+ nests deeper than 32 levels$/);

    const manyKeys = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, 1]));
    expect((await svc.http('PATCH', '/config/core', { body: manyKeys })).status).toBe(413);
    const bigString = await svc.http('PATCH', '/config/core', { body: { x: 'y'.repeat(70_000) } });
    expect(bigString.status).toBe(413);
    expect(bigString.body.message).toBe('body.x is longer than 65536 bytes');
    const token = await userToken('shape@example.com');
    const longArray = await client('POST', '/authorization/decisions', token, { items: Array.from({ length: 10_001 }, () => 1) });
    expect(longArray.status).toBe(413);
    expect(longArray.body).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: 'body.items has more than 10000 items' });
    // A query parameter is held to the same limit (over GraphQL: a URL that long is refused by HTTP itself).
    const search = await gql(svc.admin, { masterkey: svc.config.MASTER_KEY }, `{ get_authorization_resources(search: "${'s'.repeat(70_000)}") }`);
    expect(search.body.errors[0].extensions).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
    expect(search.body.errors[0].message).toBe('query.search is longer than 65536 bytes');

    const grpc = new AuthzGraphClient({ address: svc.grpc, masterkey: svc.config.MASTER_KEY });
    try {
      const refused = await grpc.can({ subject: 'User:u', permission: 'view', resource: long }).then(() => null, (e: unknown) => e as AuthzGraphError);
      expect(refused?.code).toBe('VALIDATION_FAILED');
    } finally {
      grpc.close();
    }
  });
});

describe('bodies and socket messages', () => {
  it('holds a login to its own body limit (16 KB) and a route without a body to 1 KB, with 413 and the error body', async () => {
    const login = await svc.http('POST', '/login', { body: { username: 'admin', password: 'p'.repeat(20_000) }, headers: {} });
    expect(login.status).toBe(413);
    expect(login.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413, message: 'The body exceeds 16384 bytes' });
    const register = await client('POST', '/authentication/local/new', undefined, { email: 'e'.repeat(20_000), password: 'correct horse' });
    expect(register.status).toBe(413);
    expect(register.body).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: 'The body exceeds 16384 bytes' });
    const stray = await svc.http('DELETE', '/authorization/resources/Nothing', { body: { pad: 'x'.repeat(2000) } });
    expect(stray.status).toBe(413);
    // Below its limit a login body is read, and answered as a login.
    expect((await svc.http('POST', '/login', { body: { username: 'admin', password: 'wrong password' }, headers: {} })).status).toBe(401);
  });

  it('counts every socket message against the client rate limit (POST /realtime): past it, each is answered RATE_LIMITED', async () => {
    const token = await userToken('socket@example.com');
    const ws = new WebSocket(svc.socket, { headers: { authorization: `Bearer ${token}` } });
    const got: Array<Record<string, unknown>> = [];
    ws.on('message', (d) => got.push(JSON.parse(String(d)) as Record<string, unknown>));
    await new Promise((res, rej) => {
      ws.once('open', res);
      ws.once('error', rej);
    });
    for (let i = 0; i < 5; i++) ws.send(JSON.stringify({ type: 'ping' }));
    const deadline = Date.now() + 5000;
    while (got.length < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    ws.close();
    expect(got.filter((m) => m.type === 'pong')).toHaveLength(3);
    expect(got.filter((m) => m.type === 'error').map((m) => m.code)).toEqual(['RATE_LIMITED', 'RATE_LIMITED']);
  });
});

/** Sends raw bytes to a surface and reads the whole answer (the server closes the connection). */
function raw(base: string, bytes: Buffer): Promise<{ status: number; headers: string; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes));
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]), headers: head, body });
    });
  });
}

describe('requests HTTP itself refuses', () => {
  it("answers headers past 16 KB with 431 and bytes that are not HTTP with 400, each with the surface's error body", async () => {
    const long = await raw(svc.admin, Buffer.from(`GET /live?pad=${'z'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`));
    expect(long.status).toBe(431);
    expect(JSON.parse(long.body)).toMatchObject({ code: 'HEADERS_TOO_LARGE', status: 431 });
    expect(long.headers).toMatch(/X-Content-Type-Options: nosniff/);
    const garbage = await raw(svc.client, Buffer.concat([Buffer.from('GET /database/'), Buffer.from([0xff, 0xfe]), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')]));
    expect(garbage.status).toBe(400);
    expect(JSON.parse(garbage.body)).toEqual({ code: 'BAD_REQUEST', message: 'The request is not valid HTTP' });
    const socketPort = new URL(svc.socket.replace('ws:', 'http:')).origin;
    const onSocket = await raw(socketPort, Buffer.from('\x01\x02 not http\r\n\r\n'));
    expect(onSocket.status).toBe(400);
  });

  it("gives Apollo's own refusals (a query that is not a string, a batch) the catalog status", async () => {
    const notString = await svc.http('POST', `${svc.admin}/graphql`, { body: { query: { $ne: null } } });
    expect(notString.status).toBe(400);
    expect(notString.body.errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
    const batch = await svc.http('POST', `${svc.admin}/graphql`, { body: [{ query: '{ __typename }' }, { query: '{ __typename }' }] });
    expect(batch.status).toBe(400);
    expect(batch.body.errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
  });
});

describe('what a caller can make the service hold', () => {
  it('closes a socket whose message passes SOCKET_MAX_MESSAGE (1009) before it is parsed or queued', async () => {
    const token = await userToken('bigframe@example.com');
    const ws = new WebSocket(svc.socket, { headers: { authorization: `Bearer ${token}` } });
    await new Promise((res, rej) => {
      ws.once('open', res);
      ws.once('error', rej);
    });
    const closed = new Promise<number>((res) => ws.once('close', (code) => res(code)));
    ws.send(JSON.stringify({ type: 'subscribe', topic: 'decisions', id: 'x', items: ['a'.repeat(200_000)] }));
    expect(await closed).toBe(1009);
  });

  it('refuses a lone surrogate (JSON "\\ud800"), which the store would keep as another id the index never matches', async () => {
    const raw = '{"subject":"User:u","relation":"viewer","resource":"Folder:a\\ud800"}';
    const r = await svc.http('POST', '/authorization/relations', { raw });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/lone surrogate/);
    expect((await svc.http('GET', '/authorization/relations?search=Folder:a')).body.count).toBe(0);
  });
});

describe('GraphQL documents', () => {
  it('refuses 20,000 aliases of me at once as too many tokens (400), and the service answers others meanwhile', async () => {
    const token = await userToken('aliases@example.com');
    const query = `{ ${Array.from({ length: 20_000 }, (_, i) => `a${i}: me`).join(' ')} }`;
    const [r, can] = await Promise.all([
      gql(svc.client, { authorization: `Bearer ${token}` }, query),
      svc.http('GET', '/authorization/permissions/can?subject=User:u&permission=view&resource=Folder:f'),
    ]);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
    expect(r.body.errors[0].message).toMatch(/2000 tokens/);
    expect(r.text.length).toBeLessThan(2000);
    expect(can.status).toBe(200);
  });

  it('refuses too many aliases, and too deep a document with 400 VALIDATION_FAILED', async () => {
    const token = await userToken('depth@example.com');
    const aliases = await gql(svc.client, { authorization: `Bearer ${token}` }, `{ ${Array.from({ length: 11 }, (_, i) => `a${i}: me`).join(' ')} }`);
    expect(aliases.status).toBe(400);
    expect(aliases.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(aliases.body.errors[0].message).toMatch(/aliases/i);
    let selection = 'leaf';
    for (let i = 0; i < 11; i++) selection = `n${i} { ${selection} }`;
    const deep = await gql(svc.client, { authorization: `Bearer ${token}` }, `{ me { ${selection} } }`);
    expect(deep.status).toBe(400);
    expect(deep.body.errors.map((e: { message: string }) => e.message).join(' ')).toMatch(/depth limit of 10 exceeded/i);
    const probing = await gql(svc.admin, { masterkey: svc.config.MASTER_KEY }, `{ get_authorization_resourcez }`);
    expect(probing.status).toBe(400);
    expect(probing.text).not.toMatch(/Did you mean/);
    const nested = await gql(svc.client, { authorization: `Bearer ${token}` }, `query { ...F } fragment F on Query { me }`);
    expect(nested.status).toBe(200);
  });

  it('charges every field of a document to its route: aliases of me past the route limit are refused (429)', async () => {
    const token = await userToken('charged@example.com');
    const r = await gql(svc.client, { authorization: `Bearer ${token}` }, `{ ${Array.from({ length: 6 }, (_, i) => `a${i}: me`).join(' ')} }`);
    const codes = (r.body.errors ?? []).map((e: { extensions: { code: string } }) => e.extensions.code);
    expect(codes).toContain('RATE_LIMITED');
    expect(Object.values(r.body.data ?? {}).filter((v) => v !== null).length).toBeLessThanOrEqual(4);
  });
});

describe('admin authentication', () => {
  it('refuses an address (429) after repeated failures, whatever it sends next, on REST and gRPC alike', async () => {
    // A separate service process state is not needed: the failures are counted per address in Redis.
    for (let i = 0; i < 5; i++) {
      const r = await svc.http('GET', '/authorization/resources', { headers: { authorization: `Bearer cdt_${'A'.repeat(43)}${i}` } });
      expect(r.status).toBe(401);
    }
    const sixth = await svc.http('GET', '/authorization/resources', { headers: { masterkey: 'wrong-but-long-enough' } });
    expect(sixth.status).toBe(429);
    expect(sixth.headers.get('retry-after')).toMatch(/^\d+$/);
    // Right credentials from the same address wait too: a guesser cannot tell a hit while refused.
    expect((await svc.http('GET', '/authorization/resources')).status).toBe(429);
    const grpc = new AuthzGraphClient({ address: svc.grpc, masterkey: svc.config.MASTER_KEY });
    try {
      const refused = await grpc.listResourceDefinitions({}).then(() => null, (e: unknown) => e as AuthzGraphError);
      expect(refused?.code).toBe('RATE_LIMITED');
    } finally {
      grpc.close();
    }
    // The client surface's users are not locked out by an admin guesser.
    expect((await client('POST', '/authentication/local/new', undefined, { email: 'after@example.com', password: 'correct horse' })).status).toBe(201);
    await svc.stop();
    svc = await startService({ ROUTER_RATE_LIMITS: LIMITS, GRAPHQL_MAX_ALIASES: '10' });
  });
});
