// The hostile-input run's service: limits raised so a fast corpus is not throttled, a little data, and a state fingerprint.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService, wipe, type TestService } from '../service.js';

export interface Fixture {
  svc: TestService;
  /** Ids and names that exist, offered to the generators as plausible values. */
  known: string[];
  user: { id: string; token: string };
  adminJwt: string;
  /** Everything a call could change that a client or operator can read back, as one JSON text. */
  fingerprint(): Promise<string>;
  /** Stops the service and removes the files directory (each run made one under the system's temporary directory). */
  stop(): Promise<void>;
}

const MANY = { windowMs: 1000, max: 1_000_000 };
/** Every route, logins and registration included, at a million a second: a 429 is still a valid answer, just not expected. */
const LIMITS = { default: MANY, routes: { 'POST /authentication/local': MANY, 'POST /login': MANY, 'POST /authentication/local/new': MANY } };

/**
 * Its own document database and Redis database on the shared dev stack: the corpus sends hundreds of bad credentials
 * a minute, which other services on the stack would count against 127.0.0.1 in Redis (and then refuse), and other
 * test files wiping the shared database mid-run would change the state this test compares.
 */
function isolated() {
  const mongo = new URL(process.env.MONGO_URL!);
  mongo.pathname = `/${mongo.pathname.slice(1) || 'authz'}_hostile`;
  const redis = new URL(process.env.REDIS_URL!);
  redis.pathname = '/9';
  return { MONGO_URL: mongo.toString(), NEO4J_URI: process.env.NEO4J_URI!, REDIS_URL: redis.toString() };
}

export async function hostileFixture(): Promise<Fixture> {
  const limits = { ROUTER_RATE_LIMITS: JSON.stringify(LIMITS), ADMIN_AUTH_FAILURES_PER_MINUTE: '1000000' };
  // On the twins (TEST_STORES=memory) the service has stores of its own already.
  const memory = process.env.TEST_STORES === 'memory';
  const urls = memory ? null : isolated();
  if (urls) await wipe(urls);
  const svc = await startService({ ...urls, ...limits }, { wipe: memory, memory });
  const ok = async (p: Promise<{ status: number; body: any }>) => { // eslint-disable-line @typescript-eslint/no-explicit-any
    const r = await p;
    if (r.status >= 300) throw new Error(`fixture call failed: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  await ok(
    svc.http('POST', '/authorization/resources', { body: { name: 'Doc', relations: { viewer: ['User', 'Team'], owner: ['User'] }, permissions: { read: ['viewer', 'owner'] } } }),
  );
  await ok(svc.http('POST', '/authorization/relations', { body: { subject: 'User:u1', relation: 'viewer', resource: 'Doc:d1' } }));
  await ok(svc.http('POST', '/authorization/permissions/grant', { body: { subject: 'User:u1', permission: 'read', resource: 'Doc:d2' } }));
  await ok(
    svc.http('POST', '/database/schemas', {
      body: { name: 'Note', fields: { title: 'String', pages: 'Number', meta: 'JSON' }, serviceOptions: { authorization: { enabled: true } } },
    }),
  );
  await ok(svc.http('POST', '/authorization/views', { body: { name: 'v1', subject: 'User:u1', permission: 'read', resourceType: 'Doc' } }));
  const client = (method: string, path: string, body?: unknown, token?: string) =>
    svc.http(method, `${svc.client}${path}`, { body, headers: token ? { authorization: `Bearer ${token}` } : {} });
  const credentials = { email: 'hostile@example.com', password: 'correct horse' };
  await ok(client('POST', '/authentication/local/new', credentials));
  const login = await ok(client('POST', '/authentication/local', credentials));
  const user = { id: login.userId as string, token: login.accessToken as string };
  const note = await ok(client('POST', '/database/Note', { title: 'n', pages: 1 }, user.token));
  const team = await ok(client('POST', '/authentication/teams', { name: 'hostile team' }, user.token));
  // A file of the user's in a directory of its own, so the corpus's replacements (PATCH) reach one that exists.
  const filesDir = await mkdtemp(join(tmpdir(), 'authz-hostile-files-'));
  await ok(svc.http('PATCH', '/config/storage', { body: { dir: filesDir } }));
  const file = await ok(client('POST', '/storage/upload', { name: 'hostile.txt', data: Buffer.from('hostile').toString('base64') }, user.token));
  const adminJwt = (await ok(svc.http('POST', '/login', { body: { username: svc.config.ADMIN_USERNAME, password: 'test-admin-password' }, headers: {} }))).token as string;
  // The MCP SDK loads on the first /mcp call, Apollo on the first /graphql of the process, and each surface builds its
  // schema on its first (hundreds of ms on a loaded core): here, not inside the corpus's bound.
  await ok(
    svc.http('POST', '/mcp', { body: { jsonrpc: '2.0', id: 0, method: 'tools/list' },
      headers: { authorization: `Bearer ${adminJwt}`, accept: 'application/json, text/event-stream' } }),
  );
  await ok(svc.http('POST', '/graphql', { body: { query: '{ __typename }' } }));
  await ok(client('POST', '/graphql', { query: '{ __typename }' }, user.token));
  const known = [user.id, `User:${user.id}`, note._id, `Note:${note._id}`, team._id, `Team:${team._id}`, 'Doc:d2', 'v1', 'hostile team', file._id];

  async function fingerprint(): Promise<string> {
    const exported = await svc.http('GET', '/state/export?tuples=true');
    // The change feed's head: any write of a tuple, grant or definition moves it.
    let after = 0;
    for (let page = await ok(svc.http('GET', '/authorization/changes?after=0&limit=1000')); page.changes.length;
      page = await ok(svc.http('GET', `/authorization/changes?after=${after}&limit=1000`))) after = page.next;
    const reads = await Promise.all([
      ok(svc.http('GET', '/api-tokens')),
      ok(svc.http('GET', '/authorization/views')),
      ok(svc.http('GET', '/database/schemas?limit=1000')),
      ok(client('GET', '/database/Note?limit=1000', undefined, user.token)),
      ok(client('GET', '/authentication/teams', undefined, user.token)),
      ok(client('GET', '/authentication/user', undefined, user.token)),
      ok(svc.http('GET', '/config')),
      ok(client('GET', '/storage/files?limit=1000', undefined, user.token)),
    ]);
    if (exported.status !== 200) throw new Error(`state export failed: ${exported.status}`);
    // When it was taken is the one thing that differs between two exports of the same state.
    const { exportedAt: _at, ...state } = exported.body as Record<string, unknown>;
    return JSON.stringify({ export: state, feedHead: after, reads }, null, 1);
  }
  return {
    svc,
    known,
    user,
    adminJwt,
    fingerprint,
    async stop() {
      await svc.stop();
      await rm(filesDir, { recursive: true, force: true });
    },
  };
}
