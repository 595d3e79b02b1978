// `npm run serve` and the Docker image run the compiled JavaScript: start it against the test stack and use it. The
// build is npm test's own type check (`typecheck:emit` writes dist/); built here only when dist/ is older than src/.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../../infra/stack.js';
import { childService, type ChildService } from '../support/child-service.js';
import { COMPILED_MAIN as MAIN, compiledIsCurrent } from '../support/compiled-entry.js';
import { wipe } from '../support/service.js';

let svc: ChildService;
beforeAll(async () => {
  await wipe({ MONGO_URL: process.env.MONGO_URL!, NEO4J_URI: process.env.NEO4J_URI!, REDIS_URL: process.env.REDIS_URL! });
  if (!compiledIsCurrent()) {
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
  }
  expect(compiledIsCurrent()).toBe(true);
  svc = await childService({}, [MAIN]);
  await svc.start();
}, 180_000);
afterAll(async () => {
  await svc?.kill('SIGTERM');
});

it('serves from dist/: ready, and its queries (read from cypher/) answer', async () => {
  expect((await svc.http('GET', '/ready')).status).toBe(200);
  expect((await svc.http('POST', '/authorization/resources', { name: 'Box', relations: { holder: ['User'] }, permissions: { open: ['holder'] } })).status).toBe(200);
  expect((await svc.http('POST', '/authorization/relations', { subject: 'User:a', relation: 'holder', resource: 'Box:b' })).status).toBe(201);
  expect((await svc.http('GET', '/authorization/permissions/can?subject=User:a&permission=open&resource=Box:b')).body).toEqual({ allowed: true });
  expect((await svc.http('GET', '/authorization/permissions/evaluate?subject=User:a&permission=open&resource=Box:b')).body.paths).toEqual(['User:a#holder@Box:b']);
});
