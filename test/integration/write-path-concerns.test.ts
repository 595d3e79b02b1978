// The write path ignores the config module `database` (issue 19): with documents read from secondaries and written
// unacknowledged (w: 0), revisions, duplicate detection, unique emails and names, and refresh-token reuse still hold.
import { MongoClient, type CommandStartedEvent } from 'mongodb';
import { primaryDb } from '../../src/stores/mongo/primary-db.js';
import { mongoDeviceTokenStore } from '../../src/stores/mongo/communications.js';
import { mongoRefreshTokenStore } from '../../src/stores/mongo/refresh-tokens.js';
import { tunedDb } from '../../src/stores/mongo/tuned-db.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
const LIMITS = JSON.stringify({ routes: { 'POST /authentication/local/new': { windowMs: 60_000, max: 1000 } } });
beforeAll(async () => {
  svc = await startService({ ROUTER_RATE_LIMITS: LIMITS });
  const set = await svc.http('PATCH', '/config/database', { body: { readPreference: 'secondaryPreferred', writeConcern: { w: 0 } } });
  expect(set.status).toBe(200);
  expect(set.body).toMatchObject({ readPreference: 'secondaryPreferred', writeConcern: { w: 0 } });
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

const client = (method: string, path: string, body?: unknown, token?: string) =>
  svc.http(method, `${svc.client}${path}`, { body, headers: token ? { authorization: `Bearer ${token}` } : {} });

it('a taken email is still a 409, and a reused refresh token still revokes the login', async () => {
  expect((await client('POST', '/authentication/local/new', { email: 'once@w0.example', password: 'correct horse' })).status).toBe(201);
  const again = await client('POST', '/authentication/local/new', { email: 'once@w0.example', password: 'another one' });
  expect([again.status, again.body.code]).toEqual([409, 'ALREADY_EXISTS']);

  const login = (await client('POST', '/authentication/local', { email: 'once@w0.example', password: 'correct horse' })).body;
  const rotated = await client('POST', '/authentication/renew', { refreshToken: login.refreshToken });
  expect(rotated.status).toBe(200);
  const racing = await Promise.all([0, 1, 2, 3].map(() => client('POST', '/authentication/renew', { refreshToken: rotated.body.refreshToken })));
  // Of rotations of one token at once, one at most wins (a unique tombstone insert decides, which w: 0 would not
  // report); the others are reuse, which ends the login (the winner's new token too, if it overlapped).
  const statuses = racing.map((r) => r.status);
  expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(1);
  expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(3);
  expect((await client('POST', '/authentication/renew', { refreshToken: login.refreshToken })).status).toBe(401);
  for (const winner of racing.filter((r) => r.status === 200)) {
    expect((await client('POST', '/authentication/renew', { refreshToken: winner.body.refreshToken })).status).toBe(401);
  }
});

it('concurrent upserts of one document never fail: a login revoked by many renewals at once, a device token registered twice at once', async () => {
  const mongo = new MongoClient(process.env.MONGO_URL!);
  await mongo.connect();
  try {
    const store = mongoRefreshTokenStore(primaryDb(mongo));
    for (let round = 0; round < 5; round++) {
      const family = `race-${Date.now()}-${round}`;
      const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => store.revokeFamily(family)));
      expect(outcomes.filter((o) => o.status === 'rejected').map((o) => String((o as PromiseRejectedResult).reason))).toEqual([]);
      expect(await store.familyRevoked(family)).toBe(true);
    }
    // The same race on another upsert: one device token registered by several requests at once.
    const devices = mongoDeviceTokenStore(primaryDb(mongo));
    for (let round = 0; round < 5; round++) {
      const now = new Date();
      const t = { _id: `race-token-${Date.now()}-${round}`, userId: 'race-user', platform: 'ios' as const, createdAt: now, updatedAt: now };
      const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => devices.register(t, 10)));
      expect(outcomes.filter((o) => o.status === 'rejected').map((o) => String((o as PromiseRejectedResult).reason))).toEqual([]);
    }
  } finally {
    await mongo.close();
  }
});

it('revisions rise with each write, a repeated tuple is no new tuple, and names and unique fields stay unique', async () => {
  expect((await svc.http('POST', '/authorization/resources', { body: { name: 'Crate', relations: { holder: ['User'] }, permissions: { open: ['holder'] } } })).status).toBe(200);
  const tuple = { subject: 'User:c', relation: 'holder', resource: 'Crate:1' };
  const first = await svc.http('POST', '/authorization/relations', { body: tuple });
  const second = await svc.http('POST', '/authorization/relations', { body: tuple });
  expect([first.status, second.status]).toEqual([201, 200]);
  const writes = await Promise.all(Array.from({ length: 6 }, (_, i) => svc.http('POST', '/authorization/relations', { body: { ...tuple, resource: `Crate:r${i}` } })));
  const revisions = writes.map((w) => w.body.revision as number);
  expect(new Set(revisions).size).toBe(6);
  expect(Math.min(...revisions)).toBeGreaterThan(first.body.revision);
  const changes = (await svc.http('GET', `/authorization/changes?after=${first.body.revision}&limit=100`)).body.changes;
  expect(changes.map((c: { revision: number }) => c.revision)).toEqual(expect.arrayContaining(revisions));
  const can = await svc.http('GET',
    `/authorization/permissions/can?subject=User:c&permission=open&resource=Crate:r5&consistency=at_least_as_fresh&revision=${Math.max(...revisions)}`);
  expect(can.body.allowed).toBe(true);

  const schema = { name: 'Tag', fields: { code: { type: 'String', unique: true } } };
  expect((await svc.http('POST', '/database/schemas', { body: schema })).status).toBe(201);
  expect((await svc.http('POST', '/database/schemas', { body: schema })).status).toBe(409);
  // Documents follow the module, but an unacknowledged write is raised to w: 1: a unique field still refuses a twin.
  const user = (await client('POST', '/authentication/local/new', { email: 'tags@w0.example', password: 'correct horse' })).status;
  expect(user).toBe(201);
  const token = (await client('POST', '/authentication/local', { email: 'tags@w0.example', password: 'correct horse' })).body.accessToken;
  const tag = await client('POST', '/database/Tag', { code: 'a' }, token);
  expect([tag.status, tag.body]).toEqual([201, expect.anything()]);
  expect((await client('POST', '/database/Tag', { code: 'a' }, token)).status).toBe(409);
});

it('what reaches the driver: the write path on the primary and acknowledged, documents as configured but never w: 0', async () => {
  const mongo = new MongoClient(process.env.MONGO_URL!, { monitorCommands: true, w: 0 });
  await mongo.connect();
  const seen: CommandStartedEvent[] = [];
  mongo.on('commandStarted', (e) => seen.push(e));
  try {
    const writePath = primaryDb(mongo).collection('write_path_probe');
    await writePath.insertOne({ _id: 'a' } as never);
    expect(seen.at(-1)!.command.writeConcern).toEqual({ w: 1 });
    await writePath.findOne({ _id: 'a' } as never);
    expect(seen.at(-1)!.command.$readPreference?.mode ?? 'primary').toBe('primary');
    const tuned = tunedDb(mongo);
    tuned.set({ readPreference: 'secondaryPreferred', writeConcern: { w: 0 } });
    await tuned.db.collection('write_path_probe').insertOne({ _id: 'b' } as never);
    expect(seen.at(-1)!.command.writeConcern).toEqual({ w: 1 });
  } finally {
    await mongo.close();
  }
});
