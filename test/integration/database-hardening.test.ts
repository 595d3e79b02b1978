// Database module hardening (issue 19): field names inherited by every object are no schema fields, and a collection
// has one schema whichever path (create, import, adoption, state import) would give it a second.
import { MongoClient } from 'mongodb';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
const LIMITS = JSON.stringify({ routes: { 'POST /authentication/local/new': { windowMs: 60_000, max: 1000 } } });
beforeAll(async () => { svc = await startService({ ROUTER_RATE_LIMITS: LIMITS }); }, 120_000);
afterAll(async () => { await svc?.stop(); });

const client = (method: string, path: string, token: string, body?: unknown, raw?: string) =>
  svc.http(method, `${svc.client}${path}`, { body, raw, headers: { authorization: `Bearer ${token}` } });

async function account(email: string) {
  expect((await svc.http('POST', `${svc.client}/authentication/local/new`, { body: { email, password: 'correct horse' }, headers: {} })).status).toBe(201);
  const r = await svc.http('POST', `${svc.client}/authentication/local`, { body: { email, password: 'correct horse' }, headers: {} });
  return { id: r.body.userId as string, token: r.body.accessToken as string };
}

describe('fields named like members of every object', () => {
  let ann: { id: string; token: string };
  let docId: string;
  beforeAll(async () => {
    const schema = { name: 'Doc', fields: { title: 'String', other: { type: 'Relation', model: 'Doc' } }, serviceOptions: { authorization: { enabled: true } } };
    expect((await svc.http('POST', '/database/schemas', { body: schema })).status).toBe(201);
    ann = await account('ann@proto.example');
    const made = await client('POST', '/database/Doc', ann.token, { title: 'kept' });
    expect(made.status).toBe(201);
    docId = made.body._id;
  });

  it('refuses them in a created document with 400 VALIDATION_FAILED and stores nothing', async () => {
    for (const raw of [
      '{"title":"x","constructor":{"blob":[1]},"toString":5}',
      '{"title":"x","hasOwnProperty":1}',
      '{"title":"x","valueOf":"v"}',
      '{"title":"x","__proto__":{"title":"y"}}',
      '{"title":"x","__proto__":5}',
    ]) {
      const r = await client('POST', '/database/Doc', ann.token, undefined, raw);
      expect([raw, r.status, r.body.code]).toEqual([raw, 400, 'VALIDATION_FAILED']);
    }
    const list = await client('GET', '/database/Doc', ann.token);
    expect(list.body.documents.map((d: { title: string }) => d.title)).toEqual(['kept']);
  });

  it('refuses them in a change, which leaves the document as it was', async () => {
    for (const raw of ['{"constructor":{"a":1}}', '{"toString":"x"}', '{"__proto__":{"title":"y"}}']) {
      const r = await client('PATCH', `/database/Doc/${docId}`, ann.token, undefined, raw);
      expect([raw, r.status]).toEqual([raw, 400]);
    }
    const doc = (await client('GET', `/database/Doc/${docId}`, ann.token)).body;
    expect(Object.keys(doc).sort()).toEqual(['_id', 'createdAt', 'title', 'updatedAt']);
  });

  it('refuses them as filters, sort keys and populate fields', async () => {
    for (const query of ['constructor=x', 'toString=1', 'hasOwnProperty=true', '__proto__=1', 'sort=constructor', 'sort=-toString',
      'sort=__proto__', 'populate=constructor', 'populate=__proto__']) {
      const r = await client('GET', `/database/Doc?${query}`, ann.token);
      expect([query, r.status, r.body.code]).toEqual([query, 400, 'VALIDATION_FAILED']);
    }
    expect((await client('GET', `/database/Doc/${docId}?populate=valueOf`, ann.token)).status).toBe(400);
    expect((await client('GET', '/database/Doc?title=kept&sort=title', ann.token)).body.count).toBe(1);
  });

  it('takes them where a schema declares them', async () => {
    const odd = { name: 'Odd', fields: { constructor: 'String', valueOf: { type: 'Number', default: 3 } } };
    expect((await svc.http('POST', '/database/schemas', { body: odd })).status).toBe(201);
    const made = await client('POST', '/database/Odd', ann.token, { constructor: 'c' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ constructor: 'c', valueOf: 3 });
    expect((await client('GET', '/database/Odd?constructor=c&sort=-valueOf', ann.token)).body.count).toBe(1);
    expect((await client('POST', '/database/Odd', ann.token, { toString: 'c' })).status).toBe(400);
  });
});

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
