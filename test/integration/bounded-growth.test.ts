// What the soak found growing without end stays bounded: per-object cache epochs expire, expired refresh tokens go.
import { Redis } from 'ioredis';
import { MongoClient } from 'mongodb';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
const folder = { name: 'Folder', relations: { viewer: ['User'] }, permissions: { view: ['viewer'] } };

beforeAll(async () => {
  svc = await startService();
  expect((await svc.http('POST', '/authorization/resources', { body: folder })).status).toBe(200);
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

describe('bounded growth', () => {
  it("sets an object's cache epoch with an expiry, and a write still invalidates a cached decision", async () => {
    const can = async () => (await svc.http('GET', '/authorization/permissions/can?subject=User:ann&permission=view&resource=Folder:f1')).body.allowed;
    expect(await can()).toBe(false);
    expect(await can()).toBe(false); // cached
    const created = await svc.http('POST', '/authorization/relations', { body: { subject: 'User:ann', relation: 'viewer', resource: 'Folder:f1' } });
    expect(created.status).toBe(201);
    expect(await can()).toBe(true);
    const redis = new Redis(svc.config.REDIS_URL);
    try {
      const keys = await redis.keys(`${svc.config.REDIS_PREFIX}:ep:Folder:f1`);
      expect(keys).toHaveLength(1);
      const ttl = await redis.ttl(keys[0]!);
      expect(ttl).toBeGreaterThan(300);
      expect(ttl).toBeLessThanOrEqual(3600);
    } finally {
      redis.disconnect();
    }
    // Delete and grant again: each write moves the epoch to a token it never had, so no old decision comes back.
    expect((await svc.http('DELETE', `/authorization/relations/${created.body._id as string}`)).status).toBe(200);
    expect(await can()).toBe(false);
    expect((await svc.http('POST', '/authorization/relations', { body: { subject: 'User:ann', relation: 'viewer', resource: 'Folder:f1' } })).status).toBe(201);
    expect(await can()).toBe(true);
  });

  it('deletes expired refresh tokens and old revocations when a process starts, and keeps live ones', async () => {
    const client = (path: string, body: unknown) => svc.http('POST', `${svc.client}${path}`, { body, headers: {} });
    expect((await client('/authentication/local/new', { email: 'purge@example.com', password: 'correct horse' })).status).toBe(201);
    const login = await client('/authentication/local', { email: 'purge@example.com', password: 'correct horse' });
    const mongo = await MongoClient.connect(svc.config.MONGO_URL);
    try {
      const tokens = mongo.db().collection<{ _id: string; expiresAt: Date; used: boolean; family: string; userId: string }>('refresh_tokens');
      const families = mongo.db().collection<{ _id: string; revokedAt: Date }>('revoked_token_families');
      const old = new Date(Date.now() - 1000);
      await tokens.insertMany([
        { _id: 'expired-live', userId: 'u', family: 'f-old', expiresAt: old, used: false },
        { _id: 'used:expired-used', userId: 'u', family: 'f-old', expiresAt: old, used: true },
      ]);
      await families.insertMany([
        { _id: 'f-ancient', revokedAt: new Date(Date.now() - 31 * 86_400_000) },
        { _id: 'f-recent', revokedAt: new Date() },
      ]);
      const second = await startService({
        MASTER_KEY: svc.config.MASTER_KEY,
        ADMIN_JWT_SECRET: svc.config.ADMIN_JWT_SECRET,
        CLIENT_JWT_SECRET: svc.config.CLIENT_JWT_SECRET,
      }, { wipe: false });
      try {
        const deadline = Date.now() + 10_000;
        // The purge deletes the tokens, then the revocations: waited for both (a read between the two saw f-ancient).
        const purged = async () => await tokens.countDocuments({ expiresAt: { $lt: new Date() } }) === 0 && await families.countDocuments({ _id: 'f-ancient' }) === 0;
        while (!(await purged()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
        expect(await tokens.countDocuments({ expiresAt: { $lt: new Date() } })).toBe(0);
        expect((await families.find({}).toArray()).map((f) => f._id)).toEqual(['f-recent']);
        // The login's own token is live: it renews.
        const renewed = await second.http('POST', `${second.client}/authentication/renew`, { body: { refreshToken: login.body.refreshToken }, headers: {} });
        expect(renewed.status).toBe(200);
      } finally {
        await second.stop();
      }
    } finally {
      await mongo.close();
    }
  });
});
