// Config modules: GET /config, GET and PATCH /config/{module}; stored in MongoDB, validated whole, applied without restart
// in every process (the router's rate limits and core.transports.graphql here).
import { startService, type TestService } from '../support/service.js';

let a: TestService;
let b: TestService;
beforeAll(async () => {
  a = await startService();
  b = await startService({ MASTER_KEY: a.config.MASTER_KEY, CLIENT_JWT_SECRET: a.config.CLIENT_JWT_SECRET }, { wipe: false });
}, 120_000);
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

const ROUTE = 'GET /authentication/user';
const burst = (svc: TestService, n: number) => Promise.all(Array.from({ length: n }, () => fetch(`${svc.client}/authentication/user`)));

async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  let v = await read();
  for (let i = 0; i < 50 && !ok(v); i++) {
    await new Promise((r) => setTimeout(r, 100));
    v = await read();
  }
  return v;
}

it('lists every module with its defaults, and refuses an unknown one', async () => {
  const all = await a.http('GET', '/config');
  expect(all.status).toBe(200);
  expect(all.body.router.rateLimits).toMatchObject({ enabled: true, default: { windowMs: 1000, max: 100 } });
  expect(all.body.core.transports.graphql).toBe(true);
  const one = await a.http('GET', '/config/router');
  expect(one.body).toEqual(all.body.router);
  const unknown = await a.http('GET', '/config/nothing');
  expect(unknown.status).toBe(404);
  expect(unknown.body.code).toBe('NOT_FOUND');
  expect((await a.http('GET', '/config', { headers: {} })).status).toBe(401);
});

it('a rate limit PATCHed in one process holds in both, without restart, and null removes it', async () => {
  const patched = await a.http('PATCH', '/config/router', { body: { rateLimits: { routes: { [ROUTE]: { windowMs: 60_000, max: 3 } } } } });
  expect(patched.status).toBe(200);
  expect(patched.body.rateLimits.routes[ROUTE]).toEqual({ windowMs: 60_000, max: 3 });
  // Built-in limits for routes the operator did not name stay (logins).
  expect(patched.body.rateLimits.default).toEqual({ windowMs: 1000, max: 100 });
  const inA = await burst(a, 6);
  expect(inA.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(3);

  const seen = await eventually(() => b.http('GET', '/config/router'), (r) => r.body.rateLimits.routes[ROUTE] !== undefined);
  expect(seen.body.rateLimits.routes[ROUTE]).toEqual({ windowMs: 60_000, max: 3 });
  expect((await burst(b, 2)).every((r) => r.status === 429)).toBe(true); // the count is in Redis, shared

  const removed = await a.http('PATCH', '/config/router', { body: { rateLimits: { routes: { [ROUTE]: null } } } });
  expect(removed.status).toBe(200);
  expect(removed.body.rateLimits.routes[ROUTE]).toBeUndefined();
  expect((await burst(a, 3)).map((r) => r.status)).toEqual([401, 401, 401]);
});

it('refuses a bad PATCH whole, with details, and changes nothing', async () => {
  await a.http('PATCH', '/config/router', { body: { rateLimits: { default: { windowMs: 2000, max: 50 } } } });
  const before = (await a.http('GET', '/config')).body;
  for (const body of [
    { rateLimits: { default: { windowMs: 5, max: 50 } } },
    { rateLimits: { routes: { 'not a route': { windowMs: 1000, max: 1 } } } },
    { rateLimits: { enabled: 'yes' } },
    { unknown: true },
    { rateLimits: { $set: { enabled: false } } },
  ]) {
    const r = await a.http('PATCH', '/config/router', { body });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(r.body.details.length).toBeGreaterThan(0);
  }
  expect((await a.http('PATCH', '/config/nothing', { body: {} })).status).toBe(404);
  expect((await a.http('GET', '/config')).body).toEqual(before);
});

it('concurrent PATCHes of one module from two processes all land', async () => {
  const routes = Array.from({ length: 8 }, (_, i) => `GET /database/Thing${i}`);
  const answers = await Promise.all(routes.map((route, i) =>
    (i % 2 ? a : b).http('PATCH', '/config/router', {
      body: { rateLimits: { routes: { [route]: { windowMs: 60_000, max: 100 + i } } } },
    })
  ));
  expect(answers.map((r) => r.status)).toEqual(routes.map(() => 200));
  const after = (await a.http('GET', '/config/router')).body.rateLimits.routes;
  routes.forEach((route, i) => expect(after[route]).toEqual({ windowMs: 60_000, max: 100 + i }));
});

it('turns GraphQL off and on at once (core.transports.graphql)', async () => {
  const post = () => fetch(`${a.client}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) });
  expect((await post()).status).toBe(401); // on: it asks for a token
  expect((await a.http('PATCH', '/config/core', { body: { transports: { graphql: false } } })).status).toBe(200);
  const off = await post();
  expect(off.status).toBe(404);
  expect((await off.json()).code).toBe('ROUTE_NOT_FOUND');
  expect((await a.http('PATCH', '/config/core', { body: { transports: { graphql: true } } })).status).toBe(200);
  expect((await post()).status).toBe(401);
});

it('survives a restart: the stored settings are read at start', async () => {
  await b.stop();
  b = await startService({ MASTER_KEY: a.config.MASTER_KEY }, { wipe: false });
  expect((await b.http('GET', '/config/router')).body.rateLimits.default).toEqual({ windowMs: 2000, max: 50 });
});
