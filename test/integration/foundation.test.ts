// Foundation: health, errors, login, API tokens and credential mix-ups (what /ready says of each store, up or down:
// ready-stores.test.ts, on the real servers).
import { SignJWT } from 'jose';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService({ READY_CHECK_REDIS: '1' });
});
afterAll(async () => {
  await svc?.stop();
});

const login = async () => {
  const r = await svc.http('POST', '/login', { body: { username: 'admin', password: 'test-admin-password' }, headers: {} });
  expect(r.status).toBe(200);
  return r.body.token as string;
};

describe('health', () => {
  it('GET /live answers without auth', async () => {
    const r = await svc.http('GET', '/live', { headers: {} });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'alive', message: expect.any(String) });
  });
  it('GET /ready in plain text with ?legacy=true or Accept: text/plain', async () => {
    expect((await svc.http('GET', '/ready?legacy=true', { headers: {} })).text).toBe('online');
    const r = await svc.http('GET', '/ready', { headers: { accept: 'text/plain' } });
    expect(r.text).toBe('online');
    expect(r.headers.get('content-type')).toContain('text/plain');
  });
});

describe('errors', () => {
  it('unknown routes get a JSON 404', async () => {
    const r = await svc.http('GET', '/no/such/route');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ status: 404, code: 'ROUTE_NOT_FOUND' });
  });
  it('malformed JSON is 400, not 500', async () => {
    const r = await svc.http('POST', '/login', { raw: '{"username":', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('BAD_REQUEST');
  });
  it('a body over the limit is 413', async () => {
    const r = await svc.http('POST', '/api-tokens', { body: { name: 'x'.repeat(2_000_000) } });
    expect(r.status).toBe(413);
    expect(r.body.code).toBe('PAYLOAD_TOO_LARGE');
  });
  it('unknown body fields are 400 with details', async () => {
    const r = await svc.http('POST', '/api-tokens', { body: { name: 'n', extra: 1 } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('VALIDATION_FAILED');
    expect(r.body.details.length).toBeGreaterThan(0);
  });
  it('the client surface answers with the streamlined body', async () => {
    const r = await svc.http('GET', `${svc.client}/nope`, { headers: {} });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ code: 'ROUTE_NOT_FOUND', message: expect.any(String) });
  });
});

describe('login and API tokens', () => {
  it('login gives a JWT that opens admin routes; a wrong password is 401', async () => {
    const token = await login();
    expect((await svc.http('GET', '/api-tokens', { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    const bad = await svc.http('POST', '/login', { body: { username: 'admin', password: 'wrong-password' }, headers: {} });
    expect(bad.status).toBe(401);
    const nobody = await svc.http('POST', '/login', { body: { username: 'nobody', password: 'wrong-password' }, headers: {} });
    expect(nobody.status).toBe(401);
  });
  it('creates a token shown once, lists metadata only, records lastUsedAt, revokes', async () => {
    const jwt = { authorization: `Bearer ${await login()}` };
    const created = await svc.http('POST', '/api-tokens', { body: { name: 'ci', expiresInDays: 7 }, headers: jwt });
    expect(created.status).toBe(201);
    const { token, tokenPrefix, id, expiresAt } = created.body;
    expect(token).toMatch(/^cdt_[A-Za-z0-9_-]{40,}$/);
    expect(tokenPrefix).toBe(token.slice(0, 12));
    const days = (new Date(expiresAt).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThan(7.1);

    const viaToken = { authorization: `Bearer ${token}` };
    const list = await svc.http('GET', '/api-tokens', { headers: viaToken });
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(token);
    expect(list.text).not.toContain('hash');
    const row = list.body.tokens.find((t: { id: string }) => t.id === id);
    expect(row).toMatchObject({ name: 'ci', tokenPrefix });
    expect(row.lastUsedAt).not.toBeNull();

    expect((await svc.http('DELETE', `/api-tokens/${id}`, { headers: jwt })).status).toBe(200);
    expect((await svc.http('GET', '/api-tokens', { headers: viaToken })).status).toBe(401);
  });
  it('defaults expiry to 90 days and rejects out-of-range expiry', async () => {
    const r = await svc.http('POST', '/api-tokens', { body: { name: 'default' } });
    const days = (new Date(r.body.expiresAt).getTime() - Date.now()) / 86_400_000;
    expect(Math.round(days)).toBe(90);
    expect((await svc.http('POST', '/api-tokens', { body: { name: 'x', expiresInDays: 0 } })).status).toBe(400);
    expect((await svc.http('POST', '/api-tokens', { body: { name: 'x', expiresInDays: 3651 } })).status).toBe(400);
  });
});

describe('credential mix-ups on an admin route', () => {
  const cases: Array<[string, () => Promise<{ method: string; path: string; headers: Record<string, string> }>, number]> = [];
  const get = (headers: Record<string, string>) => ({ method: 'GET', path: '/api-tokens', headers });
  let other: { token: string; id: string };
  let mine: { token: string; id: string };
  beforeAll(async () => {
    // A second admin, made by the bootstrap path of another service instance on the same database.
    const second = await startService({ ADMIN_USERNAME: 'second', ADMIN_PASSWORD: 'second-password', MASTER_KEY: svc.config.MASTER_KEY,
      ADMIN_JWT_SECRET: svc.config.ADMIN_JWT_SECRET }, { wipe: false });
    const r = await second.http('POST', '/login', { body: { username: 'second', password: 'second-password' }, headers: {} });
    const made = await second.http('POST', '/api-tokens', { body: { name: 'theirs' }, headers: { authorization: `Bearer ${r.body.token}` } });
    other = { token: made.body.token, id: made.body.id };
    await second.stop();
    const m = await svc.http('POST', '/api-tokens', { body: { name: 'revoked' } });
    mine = { token: m.body.token, id: m.body.id };
    await svc.http('DELETE', `/api-tokens/${mine.id}`);
  });
  const secret = () => new TextEncoder().encode(svc.config.ADMIN_JWT_SECRET);
  cases.push(
    ['no credentials', async () => get({}), 401],
    ['wrong masterkey', async () => get({ masterkey: 'not-the-masterkey' }), 401],
    ['malformed bearer', async () => get({ authorization: 'Bearer' }), 401],
    ['bearer with two parts', async () => get({ authorization: 'Bearer a b' }), 401],
    ['garbage JWT', async () => get({ authorization: 'Bearer abc.def.ghi' }), 401],
    ['expired admin JWT', async () => {
      const admin = await svc.http('POST', '/login', { body: { username: 'admin', password: 'test-admin-password' }, headers: {} });
      const sub = JSON.parse(Buffer.from(admin.body.token.split('.')[1], 'base64url').toString()).sub;
      const jwt = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(sub).setIssuer('authz-admin')
        .setAudience('admin').setIssuedAt(Math.floor(Date.now() / 1000) - 7200).setExpirationTime(Math.floor(Date.now() / 1000) - 3600).sign(secret());
      return get({ authorization: `Bearer ${jwt}` });
    }, 401],
    ['revoked API token', async () => get({ authorization: `Bearer ${mine.token}` }), 401],
    ['unknown API token', async () => get({ authorization: 'Bearer cdt_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }), 401],
    ["deleting another admin's token", async () => ({ method: 'DELETE', path: `/api-tokens/${other.id}`, headers: svc.asAdmin }), 403],
    ['client-style token (signed with the client secret)', async () => {
      const jwt = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('user-1').setIssuer('authz-client')
        .setAudience('client').setExpirationTime('1h').sign(new TextEncoder().encode(svc.config.CLIENT_JWT_SECRET));
      return get({ authorization: `Bearer ${jwt}` });
    }, 401],
    ['API token creating another API token', async () => ({ method: 'POST', path: '/api-tokens', headers: { authorization: `Bearer ${other.token}` } }), 403],
    ['valid masterkey', async () => get(svc.asAdmin), 200],
  );
  it.each(cases)('%s', async (_label, make, status) => {
    const req = await make();
    const r = await svc.http(req.method, req.path, { headers: req.headers, ...(req.method === 'POST' ? { body: { name: 'x' } } : {}) });
    expect(r.status).toBe(status);
    if (status !== 200) expect(r.body).toMatchObject({ status, code: expect.any(String), message: expect.any(String) });
  });
  it("the other admin's token survived the refused deletion", async () => {
    expect((await svc.http('GET', '/api-tokens', { headers: { authorization: `Bearer ${other.token}` } })).status).toBe(200);
  });
});
