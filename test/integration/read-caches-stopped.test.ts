// A service process that stops answering (SIGSTOP) neither blocks another's writes for long nor serves a stale
// decision when it resumes: the stopped one is a child process on the real stack (the other read caches: read-caches.test.ts).
import { childService } from '../support/child-service.js';
import { defineFoldersAndDocs } from '../support/folder-docs.js';
import { startService, type TestService } from '../support/service.js';

let a: TestService;
beforeAll(async () => {
  a = await startService();
  await defineFoldersAndDocs(a);
}, 120_000);
afterAll(async () => {
  await a?.stop();
});

async function write(svc: TestService, subject: string, relation: string, resource: string) {
  const r = await svc.http('POST', '/authorization/relations', { body: { subject, relation, resource } });
  expect(r.status).toBe(201);
  return r;
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const can = async (svc: { http(method: string, path: string): Promise<{ status: number; body: any }> }, subject: string, resource: string) => {
  const r = await svc.http('GET', `/authorization/permissions/can?subject=${subject}&permission=view&resource=${resource}`);
  expect(r.status).toBe(200);
  return r.body.allowed as boolean;
};

it('a process that stops answering neither blocks writes for long nor serves a stale decision when it resumes', async () => {
  const c = await childService({ MONGO_URL: a.config.MONGO_URL, NEO4J_URI: a.config.NEO4J_URI, REDIS_URL: a.config.REDIS_URL });
  await c.start();
  try {
    for (let k = 0; k < 3; k++) expect(await can(c, 'User:s', 'Doc:stopped')).toBe(false);
    c.signal('SIGSTOP');
    // a waits for c's acknowledgement, gives up, and waits out c's lease: the write still succeeds.
    await write(a, 'User:s', 'owner', 'Doc:stopped');
    c.signal('SIGCONT');
    expect(await can(c, 'User:s', 'Doc:stopped')).toBe(true);
    // c is a member again and follows the next writes.
    const tuple = await a.http('GET', '/authorization/relations?search=User:s%23owner@Doc:stopped');
    expect((await a.http('DELETE', `/authorization/relations/${tuple.body.relations[0]._id}`)).status).toBe(200);
    expect(await can(c, 'User:s', 'Doc:stopped')).toBe(false);
  } finally {
    c.signal('SIGCONT');
    await c.kill('SIGTERM');
  }
}, 60_000);
