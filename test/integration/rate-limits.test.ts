// Rate limits on the client surface and both logins: counted in Redis across processes, 429 with Retry-After.
import { startService, type TestService } from '../support/service.js';

const LIMITS = JSON.stringify({ routes: {
  'GET /authentication/user': { windowMs: 60_000, max: 4 },
  'POST /authentication/local': { windowMs: 60_000, max: 3 },
  'POST /login': { windowMs: 60_000, max: 2 },
} });
let a: TestService;
let b: TestService;
beforeAll(async () => {
  a = await startService({ ROUTER_RATE_LIMITS: LIMITS });
  // A second process of the same deployment: same stores, same secrets.
  const { CLIENT_JWT_SECRET, ADMIN_JWT_SECRET, MASTER_KEY } = a.config;
  b = await startService({ ROUTER_RATE_LIMITS: LIMITS, CLIENT_JWT_SECRET, ADMIN_JWT_SECRET, MASTER_KEY }, { wipe: false });
}, 120_000);
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

const on = (svc: TestService, method: string, path: string, o: { body?: unknown; token?: string } = {}) =>
  svc.http(method, `${svc.client}${path}`, { body: o.body, headers: o.token ? { authorization: `Bearer ${o.token}` } : {} });

it('holds a route limit across two processes, then answers 429 with Retry-After', async () => {
  await on(a, 'POST', '/authentication/local/new', { body: { email: 'limited@example.com', password: 'correct horse' } });
  const { accessToken } = (await on(a, 'POST', '/authentication/local', { body: { email: 'limited@example.com', password: 'correct horse' } })).body;
  const statuses = [];
  for (const svc of [a, b, a, b]) statuses.push((await on(svc, 'GET', '/authentication/user', { token: accessToken })).status);
  expect(statuses).toEqual([200, 200, 200, 200]);
  const over = await on(b, 'GET', '/authentication/user', { token: accessToken });
  expect(over.status).toBe(429);
  expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(over.body).toEqual({ code: 'RATE_LIMITED', message: expect.any(String) });
});

it('limits client logins per IP and email, the right password included once over the limit', async () => {
  await on(a, 'POST', '/authentication/local/new', { body: { email: 'guess@example.com', password: 'correct horse' } });
  await on(a, 'POST', '/authentication/local/new', { body: { email: 'other@example.com', password: 'correct horse' } });
  const tries = [];
  for (let i = 0; i < 3; i++) tries.push((await on(i % 2 ? a : b, 'POST', '/authentication/local', { body: { email: 'guess@example.com', password: `wrong ${i}` } })).status);
  expect(tries).toEqual([401, 401, 401]);
  expect((await on(a, 'POST', '/authentication/local', { body: { email: 'GUESS@example.com', password: 'correct horse' } })).status).toBe(429);
  expect((await on(a, 'POST', '/authentication/local', { body: { email: 'other@example.com', password: 'correct horse' } })).status).toBe(200);
});

it('limits one IP trying many accounts, at ten times the per-account limit', async () => {
  const statuses = [];
  for (let i = 0; i < 30; i++) statuses.push((await on(a, 'POST', '/authentication/local', { body: { email: `nobody${i}@example.com`, password: 'guess' } })).status);
  expect(statuses.slice(0, 15)).toEqual(Array(15).fill(401));
  expect(statuses).toContain(429);
  expect(statuses.every((x) => x === 401 || x === 429)).toBe(true);
});

it('limits admin logins with the admin error body, and leaves other admin routes alone', async () => {
  const login = (password: string) => a.http('POST', '/login', { body: { username: 'admin', password }, headers: {} });
  expect((await login('wrong one')).status).toBe(401);
  expect((await login('wrong two')).status).toBe(401);
  const over = await login('test-admin-password');
  expect(over.status).toBe(429);
  expect(over.body).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
  expect(over.headers.get('retry-after')).not.toBeNull();
  for (let i = 0; i < 10; i++) expect((await a.http('GET', '/authorization/resources')).status).toBe(200);
});
