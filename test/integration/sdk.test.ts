// The typed SDK (authz-graph/client) against the real service: a round trip with consistency tokens carried, typed
// errors, 503 retries (the service's own INDEX_BEHIND, and a real proxy in front that answers 503 before passing on).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthzApiError, createAdminClient, createAppClient, type AdminClient } from '../../src/client/index.js';
import { offlineDocuments } from '../../src/offline-documents.js';
import { holdIndexLeases } from '../support/index-leases.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
let admin: AdminClient;
// Team is built in: its members may `read` it.
const doc = { name: 'Doc', relations: { viewer: ['User', 'Team'] }, permissions: { view: ['viewer', 'viewer->read'] } };

const refused = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    if (e instanceof AuthzApiError) return e;
    throw e;
  }
  throw new Error('the call was not refused');
};
/** What a client sent: "METHOD path?query" of each request as it left (after the SDK's own middleware). */
function sent(c: AdminClient): string[] {
  const seen: string[] = [];
  c.api.use({ onRequest: ({ request }) => {
    const u = new URL(request.url);
    seen.push(`${request.method} ${u.pathname}${u.search}`);
  } });
  return seen;
}

beforeAll(async () => {
  // Its reads that must wait out the index give up after 1.5 s (FRESHNESS_WAIT_MS), not the default 5 s.
  svc = await startService({ FRESHNESS_WAIT_MS: '1500' });
  const operator = createAdminClient({ baseUrl: svc.admin });
  await operator.login(svc.config.ADMIN_USERNAME, 'test-admin-password');
  const { token } = await operator.post('/api-tokens', { body: { name: 'sdk test' } });
  admin = createAdminClient({ baseUrl: svc.admin, apiToken: token });
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

describe('SDK: models', () => {
  it('builds, in-process, the same OpenAPI documents the service serves (the generated types come from them)', async () => {
    // Both come from the same modules (src/wiring/compose.ts): a difference here is a route whose document depends on
    // the config or on state; after a route change, run `npm run sdk:types`.
    const operations = (d: { paths: Record<string, Record<string, unknown>> }) =>
      Object.entries(d.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)).sort();
    const docs = await offlineDocuments();
    for (const [surface, base] of [['admin', svc.admin], ['client', svc.client]] as const) {
      const served = await (await fetch(`${base}/openapi.json`)).json() as { paths: Record<string, Record<string, unknown>> };
      const offline = docs[surface] as typeof served;
      expect([surface, operations(offline)]).toEqual([surface, operations(served)]);
      expect(offline).toEqual(served);
    }
  });

  it('defines a model, writes tuples, and reads them at once with the consistency token carried', async () => {
    const seen = sent(admin);
    const defined = await admin.post('/authorization/resources', { body: doc });
    expect(defined.status).toBe('processed');
    // A batch write is indexed after the answer; the carried revision makes the next read wait for it.
    const written = await admin.post('/authorization/relations/write', { body: { updates: [
      { operation: 'create', subject: 'User:ann', relation: 'member', resource: 'Team:eng' },
      { operation: 'create', subject: 'Team:eng', relation: 'viewer', resource: 'Doc:plan' },
      ...Array.from({ length: 200 }, (_, i) => ({ operation: 'create' as const, subject: 'User:bob', relation: 'viewer', resource: `Doc:d${i}` })),
    ] } });
    expect(admin.revision).toBe(written.revision);
    const can = await admin.get('/authorization/permissions/can', { params: { query: { subject: 'User:ann', permission: 'view', resource: 'Doc:plan' } } });
    expect(can.allowed).toBe(true);
    expect(seen.at(-1)).toBe(
      `GET /authorization/permissions/can?subject=User%3Aann&permission=view&resource=Doc%3Aplan&consistency=at_least_as_fresh&revision=${written.revision}`,
    );
    const objects = await admin.get('/authorization/permissions/objects', { params: { query: { subject: 'User:bob', permission: 'view', resourceType: 'Doc', limit: 1000 } } });
    expect(objects.count).toBe(200);
    const relations = await admin.get('/authorization/relations', { params: { query: { resourceType: 'Doc', search: 'User:bob', limit: 5 } } });
    expect(relations.count).toBe(200);
    expect(relations.relations.map((r) => r.computedTuple)).toEqual(['User:bob#viewer@Doc:d0', 'User:bob#viewer@Doc:d1', 'User:bob#viewer@Doc:d10', 'User:bob#viewer@Doc:d100',
      'User:bob#viewer@Doc:d101']);
    // In a body too, and a caller's own choice of consistency is kept.
    const bulk = await admin.post('/authorization/permissions/bulk', {
      body: { items: [{ subject: 'User:bob', permission: 'view', resource: 'Doc:d199' }, { subject: 'User:ann', permission: 'view', resource: 'Doc:d0' }] },
    });
    expect(bulk.results).toEqual([{ allowed: true }, { allowed: false }]);
    await admin.get('/authorization/permissions/can', { params: { query: { subject: 'User:ann', permission: 'view', resource: 'Doc:plan', consistency: 'fully_consistent' } } });
    expect(seen.at(-1)).toBe('GET /authorization/permissions/can?subject=User%3Aann&permission=view&resource=Doc%3Aplan&consistency=fully_consistent');
    // A single write answers its revision in the header too; the carried one moves forward.
    const one = await admin.post('/authorization/relations', { body: { subject: 'User:cy', relation: 'viewer', resource: 'Doc:plan' } });
    expect(one.revision).toBeGreaterThan(written.revision);
    expect(admin.revision).toBe(one.revision);
    const deleted = await admin.delete('/authorization/relations/{id}', { params: { path: { id: one._id } } });
    expect(admin.revision).toBe(deleted.revision);
  });
});

describe('SDK: errors and retries', () => {
  it("throws a typed error with the service's error body on bad input, without retrying it", async () => {
    let calls = 0;
    const counted = createAdminClient({ baseUrl: svc.admin, masterkey: svc.config.MASTER_KEY, fetch: (r) => {
      calls++;
      return fetch(r);
    } });
    const undeclared = await refused(counted.post('/authorization/relations', { body: { subject: 'User:x', relation: 'owner', resource: 'Doc:plan' } }));
    expect(undeclared).toMatchObject({ status: 422, code: 'RELATION_NOT_DEFINED' });
    expect(undeclared.message).toContain('owner');
    expect(undeclared.body).toMatchObject({ status: 422, code: 'RELATION_NOT_DEFINED', details: expect.any(Array) });
    const malformed = await refused(counted.get('/authorization/permissions/can', { params: { query: { subject: 'no colon', permission: 'view', resource: 'Doc:plan' } } }));
    expect(malformed).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(malformed.details.length).toBeGreaterThan(0);
    const missing = await refused(counted.get('/authorization/resources/{id}', { params: { path: { id: 'Nothing' } } }));
    expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    const anonymous = await refused(createAdminClient({ baseUrl: svc.admin }).get('/authorization/resources'));
    expect(anonymous).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    expect(calls).toBe(3);
  });

  it("retries the service's own 503 INDEX_BEHIND a bounded number of times, then throws it", async () => {
    let calls = 0;
    const c = createAdminClient({ baseUrl: svc.admin, masterkey: svc.config.MASTER_KEY, retry: { attempts: 2, baseDelayMs: 10 }, fetch: (r) => {
      calls++;
      return fetch(r);
    } });
    // A write the index has not applied (its leases held, as a busy process would): the service waits for it (FRESHNESS_WAIT_MS),
    // then answers 503 INDEX_BEHIND. (A revision never issued is a 400 at once: nothing to retry.)
    const release = await holdIndexLeases(svc, 'all', 40_000);
    try {
      const w = await svc.http('POST', '/authorization/relations/many', { body: { subject: 'User:ann', relation: 'viewer', resources: ['Doc:held'] } });
      expect(w.status).toBe(200);
      c.observeRevision(Number(w.body.revision));
      const behind = await refused(c.get('/authorization/permissions/can', { params: { query: { subject: 'User:ann', permission: 'view', resource: 'Doc:plan' } } }));
      expect(behind).toMatchObject({ status: 503, code: 'INDEX_BEHIND' });
      expect(calls).toBe(2);
    } finally {
      await release();
    }
  }, 30_000);
});

describe('SDK: behind a proxy', () => {
  describe('behind a proxy that answers 503 before passing requests on', () => {
    let proxy: Server;
    let url: string;
    const plan = { failures: 0, retryAfter: undefined as string | undefined, seen: [] as string[] };

    beforeAll(async () => {
      proxy = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          plan.seen.push(`${req.method} ${req.url}`);
          if (plan.failures > 0) {
            plan.failures--;
            res.writeHead(503, { 'content-type': 'application/json', ...(plan.retryAfter ? { 'retry-after': plan.retryAfter } : {}) });
            res.end(JSON.stringify({ status: 503, code: 'STORE_UNAVAILABLE', message: 'MongoDB is unavailable; retry shortly', details: [] }));
            return;
          }
          const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)) as [string, string][]);
          void fetch(svc.admin + req.url, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined }).then(async (r) => {
            res.writeHead(r.status, Object.fromEntries([...r.headers].filter(([k]) => !['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(k))));
            res.end(Buffer.from(await r.arrayBuffer()));
          }, () => {
            res.writeHead(502);
            res.end();
          });
        });
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise((resolve) => proxy.close(resolve));
    });
    beforeEach(() => {
      plan.failures = 0;
      plan.retryAfter = undefined;
      plan.seen = [];
    });

    const client = () => createAdminClient({ baseUrl: url, masterkey: svc.config.MASTER_KEY, retry: { baseDelayMs: 5 } });

    it('retries a read, and an idempotent write with its body, until the service answers', async () => {
      plan.failures = 2;
      expect((await client().get('/authorization/resources/{id}', { params: { path: { id: 'Doc' } } })).name).toBe('Doc');
      expect(plan.seen).toEqual(['GET /authorization/resources/Doc', 'GET /authorization/resources/Doc', 'GET /authorization/resources/Doc']);
      plan.seen = [];
      plan.failures = 2;
      plan.retryAfter = '0';
      const written = await client().post('/authorization/relations', { body: { subject: 'User:dee', relation: 'viewer', resource: 'Doc:plan' } });
      expect(written.computedTuple).toBe('User:dee#viewer@Doc:plan');
      expect(plan.seen).toHaveLength(3);
    });

    it('gives up after the attempts it is allowed, with the last 503 as a typed error', async () => {
      plan.failures = 10;
      const gaveUp = await refused(client().get('/authorization/resources'));
      expect(gaveUp).toMatchObject({ status: 503, code: 'STORE_UNAVAILABLE', message: 'MongoDB is unavailable; retry shortly' });
      expect(plan.seen).toHaveLength(4);
    });

    it('does not repeat a write that is not idempotent, nor wait for a Retry-After longer than it allows', async () => {
      plan.failures = 1;
      const once = await refused(client().post('/authorization/resources', { body: { name: 'Other', relations: {}, permissions: {} } }));
      expect(once.code).toBe('STORE_UNAVAILABLE');
      expect(plan.seen).toEqual(['POST /authorization/resources']);
      plan.seen = [];
      plan.failures = 1;
      plan.retryAfter = '120';
      expect((await refused(client().get('/authorization/resources'))).status).toBe(503);
      expect(plan.seen).toHaveLength(1);
    });
  });
});

describe('SDK: redirects', () => {
  it('does not follow a redirect: the masterkey never reaches the other origin, and the 3xx is a typed error', async () => {
    const elsewhere: Array<string | undefined> = [];
    const other = createServer((req, res) => {
      elsewhere.push(req.headers.masterkey as string | undefined);
      res.end('{}');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const redirector = createServer((req, res) => {
      res.writeHead(307, { location: `http://localhost:${(other.address() as AddressInfo).port}${req.url}` });
      res.end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    try {
      const c = createAdminClient({ baseUrl: `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`, masterkey: svc.config.MASTER_KEY });
      const moved = await refused(c.get('/authorization/resources'));
      expect(moved).toMatchObject({ status: 307, code: 'HTTP_307' });
      expect(moved.response.headers.get('location')).toMatch(/\/authorization\/resources$/);
      // A read the carried revision is written into (a new request, here its body) keeps the setting.
      c.observeRevision(1);
      const bulk = await refused(c.post('/authorization/permissions/bulk', { body: { items: [{ subject: 'User:a', permission: 'view', resource: 'Doc:1' }] } }));
      expect(bulk).toMatchObject({ status: 307, code: 'HTTP_307' });
      expect(elsewhere).toEqual([]);
    } finally {
      await Promise.all([redirector, other].map((s) => new Promise((resolve) => s.close(resolve))));
    }
  });
});

describe('SDK: the client surface', () => {
  it('registers, logs in and checks as a user on the client surface', async () => {
    const app = createAppClient({ baseUrl: svc.client });
    const { user } = await app.register('sdk@example.com', 'correct horse battery');
    const tokens = await app.login('sdk@example.com', 'correct horse battery');
    expect(tokens.userId).toBe(user._id);
    expect(app.accessToken).toBe(tokens.accessToken);
    expect((await app.get('/authentication/user')).user.email).toBe('sdk@example.com');
    await admin.post('/authorization/relations', { body: { subject: `User:${user._id}`, relation: 'viewer', resource: 'Doc:mine' } });
    expect((await app.get('/authorization/check', { params: { query: { action: 'view', resource: 'Doc:mine' } } })).allowed).toBe(true);
    expect((await app.get('/authorization/check', { params: { query: { action: 'view', resource: 'Doc:plan' } } })).allowed).toBe(false);
    const decided = await app.post('/authorization/decisions', { body: { items: [{ action: 'view', resource: 'Doc:mine' }, { action: 'view', resource: 'Doc:d1' }] } });
    expect(decided.items.map((i) => i.allowed)).toEqual([true, false]);
    const wrongScope = await refused(app.get('/authorization/check', { params: { query: { action: 'view', resource: 'Doc:mine', scope: 'Team:eng' } } }));
    expect(wrongScope).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(wrongScope.body).toEqual({ code: 'FORBIDDEN', message: expect.any(String) });
    await app.renew();
    expect(app.accessToken).not.toBe(tokens.accessToken);
    await app.logout();
    expect(await refused(app.get('/authentication/user'))).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
  });

  it('gives an app the fresh answer after an admin bulk write: the observed revision goes on client checks, decisions and lists', async () => {
    const app = createAppClient({ baseUrl: svc.client });
    const { user } = await app.register('fresh@example.com', 'correct horse battery');
    await app.login('fresh@example.com', 'correct horse battery');
    await admin.post('/authorization/resources', { body: doc });
    const seen: string[] = [];
    app.api.use({ onRequest: async ({ request }) => {
      const u = new URL(request.url);
      seen.push(`${request.method} ${u.pathname}${u.search} ${request.method === 'POST' ? await request.clone().text() : ''}`);
    } });
    await admin.post('/database/schemas', { body: { name: 'FreshNote', fields: { title: 'String' }, serviceOptions: { authorization: { enabled: true } } } });
    const author = createAppClient({ baseUrl: svc.client });
    await author.register('author@example.com', 'correct horse battery');
    await author.login('author@example.com', 'correct horse battery');
    const note = await author.post('/database/{schema}', { params: { path: { schema: 'FreshNote' } }, body: { title: 'shared' } }) as { _id: string };
    // A bulk write is indexed after its answer: the ones the app cares about come last, behind 300 others.
    const written = await admin.post('/authorization/relations/write', { body: { updates: [
      ...Array.from({ length: 300 }, (_, i) => ({ operation: 'create' as const, subject: `User:${user._id}`, relation: 'viewer', resource: `Doc:bulk${i}` })),
      { operation: 'create', subject: `User:${user._id}`, relation: 'viewer', resource: 'Doc:fresh' },
      { operation: 'create', subject: `User:${user._id}`, relation: 'reader', resource: `FreshNote:${note._id}` },
    ] } });
    app.observeRevision(admin.revision!);
    expect(app.revision).toBe(written.revision);
    expect((await app.get('/authorization/check', { params: { query: { action: 'view', resource: 'Doc:fresh' } } })).allowed).toBe(true);
    expect(seen.at(-1)).toBe(`GET /authorization/check?action=view&resource=Doc%3Afresh&consistency=at_least_as_fresh&revision=${written.revision} `);
    const decided = await app.post('/authorization/decisions', { body: { items: [{ action: 'view', resource: 'Doc:bulk299' }] } });
    expect(decided.items).toEqual([{ action: 'view', resource: 'Doc:bulk299', allowed: true, revision: expect.any(Number) }]);
    expect(decided.items[0]!.revision).toBeGreaterThanOrEqual(written.revision);
    expect(JSON.parse(seen.at(-1)!.split(' ').slice(2).join(' '))).toMatchObject({ consistency: 'at_least_as_fresh', revision: written.revision });
    // The documents list takes the same fields (schema fields are its other query names, so the SDK does not add them).
    const list = await fetch(`${svc.client}/database/FreshNote?consistency=at_least_as_fresh&revision=${written.revision}`, {
      headers: { authorization: `Bearer ${app.accessToken}` },
    });
    expect([list.status, ((await list.json()) as { documents: Array<{ _id: string }> }).documents.map((d) => d._id)]).toEqual([200, [note._id]]);
    // A revision never issued is refused at once, as on the admin reads (one held back by the index is client-freshness.test.ts).
    const ahead = await refused(createAppClient({ baseUrl: svc.client, accessToken: app.accessToken, retry: false })
      .get('/authorization/check', { params: { query: { action: 'view', resource: 'Doc:fresh', consistency: 'at_least_as_fresh', revision: written.revision + 1000 } } }));
    expect(ahead).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
  }, 30_000);
});
