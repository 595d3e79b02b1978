// Introspection of the database module on MongoDB: collections written in the database itself are found, adopted as
// schemas (a driver-made ObjectId addressed by its hex string), and a module's type name is refused on finalize.
// The collections are made with the driver, so this file runs on the stack (the rest: database-module.test.ts).
import { MongoClient } from 'mongodb';
import { clientAccount, clientCall } from '../support/client-account.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

const client = (method: string, path: string, token?: string, body?: unknown) => clientCall(svc, method, path, token, body);

const account = (email: string) => clientAccount(svc, email);

it("refuses to finalize a collection as a module's type (File), with 409 naming the module, and changes nothing", async () => {
  const before = (await svc.http('GET', '/database/schemas')).body.count as number;
  const mongo = new MongoClient(process.env.MONGO_URL!);
  await mongo.connect();
  await mongo.db().collection('uploads_legacy').insertOne({ label: 'x' });
  try {
    await svc.http('POST', '/database/introspection');
    const fin = await svc.http('POST', '/database/introspection/schemas/finalize', { body: { schemas: [{ collectionName: 'uploads_legacy', name: 'File' }] } });
    expect([fin.status, fin.body.message]).toEqual([409, expect.stringContaining('storage module')]);
  } finally {
    await mongo.db().collection('uploads_legacy').drop();
    await mongo.close();
    await svc.http('POST', '/database/introspection');
  }
  expect((await svc.http('GET', '/database/schemas')).body.count).toBe(before);
  // The storage module's File is untouched.
  expect(Object.keys((await svc.http('GET', '/authorization/resources/File')).body.relations).sort()).toEqual(['editor', 'owner', 'reader']);
});

describe('introspection', () => {
  it('adopts an existing collection as a schema; turning authorization on keeps its documents', async () => {
    const mongo = new MongoClient(process.env.MONGO_URL!);
    await mongo.connect();
    await mongo.db().collection('legacy_items').insertMany([{ _id: 'i1', label: 'one', qty: 1 }, { label: 'two', qty: 2 }] as never[]);
    await mongo.close();
    expect((await svc.http('GET', '/database/introspection')).body.collections).toEqual(['legacy_items']);
    const found = await svc.http('POST', '/database/introspection');
    expect(found.body.schemas[0]).toMatchObject({ collectionName: 'legacy_items', fields: { label: { type: 'String' }, qty: { type: 'Number' } } });
    const fin = await svc.http('POST', '/database/introspection/schemas/finalize', { body: { schemas: [{ collectionName: 'legacy_items', name: 'Item' }] } });
    expect(fin.status).toBe(200);
    expect((await svc.http('GET', '/database/introspection')).body.collections).toEqual([]);
    const dave = await account('dave@db.example');
    const items = (await client('GET', '/database/Item?sort=qty', dave.token)).body;
    expect(items.count).toBe(2);
    // The second one has a driver-made ObjectId: it is addressed by its hex string like any other id.
    const generated = items.documents[1]._id as string;
    expect(generated).toMatch(/^[0-9a-f]{24}$/);
    expect((await client('GET', `/database/Item/${generated}`, dave.token)).body).toMatchObject({ label: 'two', qty: 2 });
    expect((await client('PATCH', `/database/Item/${generated}`, dave.token, { qty: 3 })).body).toMatchObject({ _id: generated, qty: 3 });
    const exported = (await svc.http('GET', '/database/schemas/export')).body.schemas.find((s: { name: string }) => s.name === 'Item');
    const on = await svc.http('POST', '/database/schemas/import', { body: { schemas: [{ ...exported, serviceOptions: { authorization: { enabled: true } } }] } });
    expect(on.body.updated).toEqual(['Item']);
    // The definition is registered; the documents stay, and nobody owns them yet, so nobody reads them.
    expect((await svc.http('GET', '/authorization/resources/Item')).status).toBe(200);
    expect((await client('GET', '/database/Item', dave.token)).body.count).toBe(0);
    expect((await client('GET', '/database/Item/i1', dave.token)).status).toBe(404);
    const mongo2 = new MongoClient(process.env.MONGO_URL!);
    await mongo2.connect();
    expect(await mongo2.db().collection('legacy_items').countDocuments({})).toBe(2);
    await mongo2.close();
  });
});
