// The lean route table takes exactly its routes (GET, no body, path as registered) and leaves everything else to the
// next handler; what it answers comes from the registry entry.
import { createServer, request, type Server } from 'node:http';
import { z } from 'zod';
import { createLogger } from '../../src/log.js';
import { leanRoutes } from '../../src/surfaces/http/lean-routes.js';
import { Registry, route } from '../../src/surfaces/registry.js';
import { Pipeline, type PipelineDeps } from '../../src/surfaces/pipeline.js';
import type { HttpDeps } from '../../src/surfaces/http/express-adapter.js';

const registry = new Registry();
registry.add(
  route({
    surface: 'admin',
    http: { method: 'get', path: '/fast', lean: true },
    group: 'core',
    auth: 'none',
    summary: 'lean',
    output: z.object({ n: z.number() }),
    query: z.strictObject({ n: z.coerce.number().int() }),
    handle: async ({ query }) => ({ body: { n: query.n * 2 } }),
  }),
  route({ surface: 'admin', http: { method: 'get', path: '/slow' }, group: 'core', auth: 'none', summary: 'not lean', output: z.object({}), handle: async () => ({ body: {} }) }),
);
const observed: string[] = [];
const log = createLogger('silent');
// Open admin routes need no credentials or limits: the pipeline is given none.
const inputLimits = { stringBytes: 65_536, arrayItems: 10_000, objectKeys: 1000, depth: 32 };
const pipeline = new Pipeline(registry, { log, maxInputBytes: 1 << 20, inputLimits, enabled: () => true } as unknown as PipelineDeps);
const deps = {
  pipeline,
  log,
  trustProxy: false,
  observe: (_s: string, m: string, r: string, status: number) => observed.push(`${m} ${r} ${status}`),
} as unknown as HttpDeps;

let server: Server;
let base: string;
beforeAll(async () => {
  const lean = leanRoutes('admin', deps);
  server = createServer((req, res) => {
    if (!lean(req, res)) {
      res.writeHead(299);
      res.end('next');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});

it('answers its routes from the registry entry, with the error body for bad input', async () => {
  const ok = await fetch(`${base}/fast?n=21`);
  expect([ok.status, await ok.json()]).toEqual([200, { n: 42 }]);
  const fragment = await fetch(`${base}/fast?n=2#ignored`);
  expect(fragment.status).toBe(200);
  const bad = await fetch(`${base}/fast?n=x`);
  expect(bad.status).toBe(400);
  expect(await bad.json()).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', details: [expect.objectContaining({ path: 'query.n' })] });
  expect(observed).toEqual(['GET /fast 200', 'GET /fast 200', 'GET /fast 400']);
});

it('leaves to the next handler: other routes, other methods, other spellings, and requests with a body', async () => {
  const next = async (path: string, init?: RequestInit) => (await fetch(`${base}${path}`, init)).status;
  expect(await next('/slow')).toBe(299);
  expect(await next('/fast/?n=1')).toBe(299);
  expect(await next('/FAST?n=1')).toBe(299);
  expect(await next('/fast?n=1', { method: 'POST' })).toBe(299);
  expect(await next('/fast?n=1', { method: 'HEAD' })).toBe(299);
  // fetch will not send a GET with a body; Express answers those (400 "takes no body"), so they go past the table.
  const withBody = await new Promise<number>((resolve, reject) => {
    const req = request(`${base}/fast?n=1`, { method: 'GET', headers: { 'content-type': 'application/json', 'content-length': '2' } }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    req.end('{}');
  });
  expect(withBody).toBe(299);
});
