// Database module hardening (issue 19): a collection has one schema whichever path (create, import, adoption, state
// import) would give it a second. The collections are written with the MongoDB driver, so this file runs on the stack.
import { MongoClient } from 'mongodb';
import { clientAccount } from '../support/client-account.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

const client = (method: string, path: string, token: string, body?: unknown, raw?: string) =>
  svc.http(method, `${svc.client}${path}`, { body, raw, headers: { authorization: `Bearer ${token}` } });

const account = (email: string) => clientAccount(svc, email);

describe('one schema per collection', () => {
  const names = async () => (await svc.http('GET', '/database/schemas?limit=1000')).body.schemas.map((s: { name: string }) => s.name).sort();
  let bob: { id: string; token: string };

  beforeAll(async () => {
    const mongo = new MongoClient(process.env.MONGO_URL!);
    await mongo.connect();
    await mongo.db().collection('legacy').insertMany([{ _id: 'l1', secret: 'one' }, { _id: 'l2', secret: 'two' }] as never[]);
    await mongo.db().collection('stale').insertOne({ _id: 's1', secret: 'three' } as never);
    await mongo.close();
    expect((await svc.http('POST', '/database/introspection')).status).toBe(200);
    const adopt = await svc.http('POST', '/database/introspection/schemas/finalize', {
      body: { schemas: [{ collectionName: 'legacy', name: 'Legacy', serviceOptions: { authorization: { enabled: true } } }] },
    });
    expect(adopt.status).toBe(200);
    bob = await account('bob@proto.example');
  });

  it('refuses a schema named after a collection another schema holds: create, import and state import, dry run or not', async () => {
    const before = await names();
    const created = await svc.http('POST', '/database/schemas', { body: { name: 'legacy', fields: { secret: 'String' } } });
    expect(created.status).toBe(409);
    expect(created.body.code).toBe('ALREADY_EXISTS');
    expect(created.body.message).toMatch(/Legacy/);
    const imported = await svc.http('POST', '/database/schemas/import', { body: { schemas: [{ name: 'Fresh', fields: {} }, { name: 'legacy', fields: {} }] } });
    expect(imported.status).toBe(409);
    for (const q of ['?dryRun=true', '']) {
      const state = await svc.http('POST', `/state/import${q}`, { body: { version: 1, schemas: [{ name: 'legacy', fields: { secret: 'String' } }] } });
      expect([q, state.status, state.body.code]).toEqual([q, 409, 'ALREADY_EXISTS']);
    }
    expect(await names()).toEqual(before);
    // So no signed-in user reads Legacy's guarded documents through a second, unguarded schema.
    expect((await client('GET', '/database/legacy', bob.token)).status).toBe(404);
    expect((await client('GET', '/database/Legacy/l1', bob.token)).status).toBe(404);
  });

  it('refuses to adopt a collection a schema took after it was introspected, and adopts nothing of that request', async () => {
    const mongo = new MongoClient(process.env.MONGO_URL!);
    await mongo.connect();
    await mongo.db().collection('spare').insertOne({ _id: 'x1', n: 1 } as never);
    await mongo.close();
    expect((await svc.http('POST', '/database/introspection')).status).toBe(200);
    expect((await svc.http('POST', '/database/schemas', { body: { name: 'stale', fields: { secret: 'String' } } })).status).toBe(201);
    const before = await names();
    const adopt = await svc.http('POST', '/database/introspection/schemas/finalize', {
      body: { schemas: [{ collectionName: 'spare', name: 'Spare' }, { collectionName: 'stale', name: 'Stale', serviceOptions: { authorization: { enabled: true } } }] },
    });
    expect(adopt.status).toBe(409);
    expect(await names()).toEqual(before);
    const twice = await svc.http('POST', '/database/introspection/schemas/finalize', {
      body: { schemas: [{ collectionName: 'spare', name: 'SpareA' }, { collectionName: 'spare', name: 'SpareB' }] },
    });
    expect(twice.status).toBe(400);
    expect(await names()).toEqual(before);
    expect((await svc.http('POST', '/database/introspection/schemas/finalize', { body: { schemas: [{ collectionName: 'spare', name: 'Spare' }] } })).status).toBe(200);
  });
});
