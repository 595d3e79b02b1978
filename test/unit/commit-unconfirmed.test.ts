// A write whose entry was logged but not marked in the fast copy (Redis went away between the two) answers 503 and
// leaves nothing pending, instead of waiting out the 30 s grace that covers a MongoDB change still under way: on the twins.
import { randomBytes } from 'node:crypto';
import { createApp, portOf, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { OFFLINE_ENV } from '../../src/offline-documents.js';
import { memoryChangeLog } from '../../src/stores/memory/change-log.js';
import { memoryRevisionCounter } from '../../src/stores/memory/revision-counter.js';
import { memoryBackend, memoryStores } from '../../src/stores/memory/stores.js';

let app: App;
let admin: string;
let masterKey: string;
let redisDown = false;

beforeAll(async () => {
  const backend = memoryBackend();
  const counter = memoryRevisionCounter(backend.hub, 'authz');
  const flaky = {
    ...counter,
    confirm: async (revision: number) => {
      if (redisDown) throw new Error('Connection is closed.');
      return counter.confirm(revision);
    },
  };
  const stores = { ...memoryStores(backend), changeLog: memoryChangeLog(flaky, backend.changeLogState) };
  masterKey = randomBytes(24).toString('hex');
  app = await createApp(loadConfig({ ...OFFLINE_ENV, MASTER_KEY: masterKey, ADMIN_PORT: '0', CLIENT_PORT: '0', GRPC_PORT: '0', SOCKET_PORT: '0' }), createLogger('silent'), {
    stores,
  });
  admin = `http://127.0.0.1:${portOf(await app.listen(), 'admin')}`;
}, 60_000);
afterAll(async () => {
  await app?.close();
});

const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(admin + path, { method, headers: { masterkey: masterKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
};

it('answers 503 STORE_UNAVAILABLE, stores nothing, and leaves nothing pending', async () => {
  expect((await call('POST', '/authorization/resources', { name: 'Doc', relations: { viewer: ['User'] }, permissions: { read: ['viewer'] } })).status).toBe(200);
  redisDown = true;
  const refused = await call('POST', '/authorization/relations', { subject: 'User:ann', relation: 'viewer', resource: 'Doc:plan' });
  redisDown = false;
  expect([refused.status, refused.body.code]).toEqual([503, 'STORE_UNAVAILABLE']);
  // Nothing past the log was done: nothing to apply, so nothing pending (it was for the 30 s grace before).
  expect((await call('GET', '/authorization/indexer/status')).body.pending).toBe(0);
  expect((await call('GET', '/authorization/relations?search=ann')).body.count).toBe(0);
  expect((await call('GET', '/authorization/permissions/can?subject=User:ann&permission=read&resource=Doc:plan')).body.allowed).toBe(false);
  // Sent again, as the 503 says: stored and indexed.
  expect((await call('POST', '/authorization/relations', { subject: 'User:ann', relation: 'viewer', resource: 'Doc:plan' })).status).toBe(201);
  expect((await call('GET', '/authorization/permissions/can?subject=User:ann&permission=read&resource=Doc:plan')).body.allowed).toBe(true);
}, 30_000);
