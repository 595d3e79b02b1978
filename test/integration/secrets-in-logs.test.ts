// No secret reaches the log: the service runs as a child process at the most verbose level with everything it writes
// captured, is used the way operators and applications use it (and misused: wrong passwords, malformed bodies), then
// the output is searched for every secret and token it saw or issued.
import { randomBytes } from 'node:crypto';
import { WebSocket } from 'ws';
import { childService, type ChildService } from '../support/child-service.js';

const output: string[] = [];
const secret = (label: string) => `${label}-${randomBytes(12).toString('hex')}`;
const adminPassword = secret('admin-pw');
const userPassword = secret('user-pw');
const wrongPassword = secret('wrong-pw');
const jwtSecrets = { ADMIN_JWT_SECRET: secret('admin-jwt-secret-0123456789'), CLIENT_JWT_SECRET: secret('client-jwt-secret-0123456789') };
let svc: ChildService;

beforeAll(async () => {
  svc = await childService({ LOG_LEVEL: 'trace', ADMIN_PASSWORD: adminPassword, ...jwtSecrets }, undefined, { output });
  await svc.start();
}, 90_000);
afterAll(async () => {
  await svc?.kill('SIGKILL');
});

async function call(base: string, method: string, path: string, opts: { body?: unknown; raw?: string; headers?: Record<string, string> } = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { ...(opts.body !== undefined || opts.raw ? { 'content-type': 'application/json' } : {}), ...opts.headers },
    body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
  });
  const text = await res.text();
  let body: any = null; // eslint-disable-line @typescript-eslint/no-explicit-any
  try {
    body = JSON.parse(text);
  } catch { /* not JSON */ }
  return { status: res.status, body };
}

it('logs none of the masterkey, passwords, JWTs, API tokens or refresh tokens', async () => {
  const admin = (method: string, path: string, opts?: Parameters<typeof call>[3]) => call(svc.admin, method, path, opts);
  const client = (method: string, path: string, opts?: Parameters<typeof call>[3]) => call(svc.client, method, path, opts);
  const masterkey = { masterkey: svc.masterKey };

  // Admin login: wrong password, a body cut short, a field too many, then the right one.
  expect((await admin('POST', '/login', { body: { username: 'admin', password: wrongPassword } })).status).toBe(401);
  expect((await admin('POST', '/login', { raw: `{"username":"admin","password":"${adminPassword}"` })).status).toBe(400);
  expect((await admin('POST', '/login', { body: { username: 'admin', password: adminPassword, extra: adminPassword } })).status).toBe(400);
  const login = await admin('POST', '/login', { body: { username: 'admin', password: adminPassword } });
  expect(login.status).toBe(200);
  const adminJwt: string = login.body.token;

  // Masterkey calls, and a wrong one.
  expect(
    (await admin('POST', '/authorization/resources', { body: { name: 'Doc', relations: { viewer: ['User'] }, permissions: { read: ['viewer'] } }, headers: masterkey })).status,
  ).toBe(200);
  expect((await admin('GET', '/authorization/permissions/can?subject=User:a&permission=read&resource=Doc:d', { headers: masterkey })).status).toBe(200);
  expect((await admin('GET', '/authorization/resources', { headers: { masterkey: `${svc.masterKey}x` } })).status).toBe(401);

  // An API token, created with the admin JWT and used on REST and GraphQL.
  const created = await admin('POST', '/api-tokens', { body: { name: 'ci' }, headers: { authorization: `Bearer ${adminJwt}` } });
  expect(created.status).toBe(201);
  const apiToken: string = created.body.token;
  const asToken = { authorization: `Bearer ${apiToken}` };
  expect((await admin('GET', '/api-tokens', { headers: asToken })).status).toBe(200);
  expect((await admin('GET', '/authorization/permissions/can?subject=User:a&permission=read&resource=Doc:d', { headers: asToken })).status).toBe(200);
  expect((await admin('POST', '/graphql', { body: { query: '{ __typename }' }, headers: asToken })).status).toBe(200);

  // A user: register, a wrong password, login, renew, use the access token, log out.
  const email = `${secret('user')}@example.com`;
  expect((await client('POST', '/authentication/local/new', { body: { email, password: userPassword } })).status).toBe(201);
  expect((await client('POST', '/authentication/local', { body: { email, password: wrongPassword } })).status).toBe(401);
  expect((await client('POST', '/authentication/local', { raw: `{"email":"${email}","password":"${userPassword}` })).status).toBe(400);
  const userLogin = await client('POST', '/authentication/local', { body: { email, password: userPassword } });
  expect(userLogin.status).toBe(200);
  const renewed = await client('POST', '/authentication/renew', { body: { refreshToken: userLogin.body.refreshToken } });
  expect(renewed.status).toBe(200);
  // The rotated refresh token again: refused (and the login revoked), which is logged as a security event if anything is.
  expect((await client('POST', '/authentication/renew', { body: { refreshToken: userLogin.body.refreshToken } })).status).toBe(401);
  const user = { authorization: `Bearer ${renewed.body.accessToken}` };
  expect([200, 401]).toContain((await client('GET', '/authentication/user', { headers: user })).status);
  // The socket in its browser form: the access token rides in Sec-WebSocket-Protocol, once accepted and once refused.
  // (A fresh login: reusing the rotated refresh token above revoked the first.)
  const socketLogin = await client('POST', '/authentication/local', { body: { email, password: userPassword } });
  expect(socketLogin.status).toBe(200);
  const socketToken: string = socketLogin.body.accessToken;
  const upgrade = (protocols: string[]) =>
    new Promise<string>((resolve, reject) => {
      const ws = new WebSocket(svc.socket, protocols);
      ws.once('open', () => {
        resolve(ws.protocol);
        ws.close();
      });
      ws.once('unexpected-response', (_req, res) => {
        resolve(String(res.statusCode));
        ws.terminate();
      });
      ws.once('error', reject);
    });
  expect(await upgrade(['authz', `authz.bearer.${socketToken}`])).toBe('authz');
  expect(await upgrade([`authz.bearer.${socketToken}`])).toBe('400');
  expect([200, 401]).toContain((await client('POST', '/authentication/logout', { headers: user })).status);

  await svc.kill('SIGTERM');
  const log = output.join('');
  // The log is there (one access line per request at this level), so finding nothing means something.
  expect(log).toContain('"url":"/login"');
  expect(log).toContain('"url":"/authentication/renew"');
  const jwts = [adminJwt, userLogin.body.accessToken, renewed.body.accessToken, socketToken];
  const secrets: Record<string, string> = {
    masterkey: svc.masterKey,
    'admin password': adminPassword,
    'user password': userPassword,
    'wrong password': wrongPassword,
    'API token': apiToken,
    'refresh token': userLogin.body.refreshToken,
    'renewed refresh token': renewed.body.refreshToken,
    ...Object.fromEntries(jwts.map((t: string, i) => [`JWT ${i}`, t])),
    // A token cut short in a log would still give its signature away.
    ...Object.fromEntries(jwts.map((t: string, i) => [`JWT ${i} signature`, t.split('.')[2]!])),
    'API token secret part': apiToken.slice(-24),
    ...jwtSecrets,
  };
  for (const [name, value] of Object.entries(secrets)) {
    expect(value.length).toBeGreaterThan(15);
    expect([name, log.includes(value)]).toEqual([name, false]);
  }
}, 120_000);
