// A unit of index work reads the model and the index generations again only after exclusive work (a redefinition's
// re-index, a rebuild) bumped the work epoch: on the twins, counting the generation reads behind single writes.
import { randomBytes } from 'node:crypto';
import { createApp, portOf, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { OFFLINE_ENV } from '../../src/offline-documents.js';
import { memoryStores } from '../../src/stores/memory/stores.js';

let app: App;
let admin: string;
let masterKey: string;
let metaReads = 0;

beforeAll(async () => {
  const stores = memoryStores();
  const meta = stores.index.meta.bind(stores.index);
  const counted = { ...stores, index: { ...stores.index, meta: () => {
    metaReads++;
    return meta();
  } } };
  masterKey = randomBytes(24).toString('hex');
  app = await createApp(loadConfig({ ...OFFLINE_ENV, MASTER_KEY: masterKey, ADMIN_PORT: '0', CLIENT_PORT: '0', GRPC_PORT: '0', SOCKET_PORT: '0' }), createLogger('silent'), {
    stores: counted,
  });
  admin = `http://127.0.0.1:${portOf(await app.listen(), 'admin')}`;
}, 60_000);
afterAll(async () => {
  await app?.close();
});

const call = async (method: string, path: string, body: unknown) => {
  const res = await fetch(admin + path, { method, headers: { masterkey: masterKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBeLessThan(300);
  return res.json();
};
/** Until the re-index of the redefinition is done (no entry pending). */
async function idle() {
  for (;;) {
    const s = await (await fetch(`${admin}/authorization/indexer/status`, { headers: { masterkey: masterKey } })).json();
    if (s.pending === 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}
const doc = (permissions: Record<string, string[]>) => ({ relations: { viewer: ['User'], parent: ['Folder'] }, permissions });
const can = async (subject: string, permission: string, resource: string) =>
  (await (await fetch(`${admin}/authorization/permissions/can?${new URLSearchParams({ subject, permission, resource })}`, { headers: { masterkey: masterKey } })).json()).allowed;

it('single writes in a row read the generations once, not once a unit; a redefinition makes the next unit read them again', async () => {
  await call('POST', '/authorization/resources', { name: 'Folder', relations: { viewer: ['User'] }, permissions: { view: ['viewer'] } });
  await call('POST', '/authorization/resources', { name: 'Doc', ...doc({ read: ['viewer'] }) });
  await call('POST', '/authorization/relations', { subject: 'User:warm', relation: 'viewer', resource: 'Doc:warm' });
  const before = metaReads;
  const started = Date.now();
  for (let i = 0; i < 10; i++) await call('POST', '/authorization/relations', { subject: `User:u${i}`, relation: 'viewer', resource: `Doc:d${i}` });
  // Read again at least every 2 s whatever the epochs say: a slow machine may take that long for the ten.
  expect(metaReads - before).toBeLessThanOrEqual(1 + Math.floor((Date.now() - started) / 2000));

  // A new permission through an arrow: the unit after the redefinition must compute the Doc's flats with it.
  await call('PATCH', '/authorization/resources/Doc', doc({ read: ['viewer', 'parent->view'] }));
  await idle();
  const afterPatch = metaReads;
  await call('POST', '/authorization/relations', { subject: 'User:f', relation: 'viewer', resource: 'Folder:f' });
  expect(metaReads).toBeGreaterThan(afterPatch);
  await call('POST', '/authorization/relations', { subject: 'Folder:f', relation: 'parent', resource: 'Doc:new' });
  expect(await can('User:f', 'read', 'Doc:new')).toBe(true);
  expect(await can('User:u3', 'read', 'Doc:d3')).toBe(true);
});
