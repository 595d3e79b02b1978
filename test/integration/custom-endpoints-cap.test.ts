// The cap of 1,000 custom endpoint definitions, and their list paged: the filler is written to MongoDB itself (a
// thousand definitions through the API would be slow), so this file runs on the stack.
import { MongoClient } from 'mongodb';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
  expect((await svc.http('POST', '/database/schemas', { body: { name: 'Notice', fields: { title: 'String', n: 'Number' } } })).status).toBe(201);
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

const define = (body: unknown) => svc.http('POST', '/database/customEndpoints', { body });

it('at most 1,000 definitions are stored', async () => {
  const mongo = new MongoClient(process.env.MONGO_URL!);
  await mongo.connect();
  try {
    const have = (await svc.http('GET', '/database/customEndpoints')).body.count as number;
    const now = new Date().toISOString();
    const filler = Array.from({ length: 1000 - have },
      (_, i) => ({ _id: `filler${i}`, name: `filler${i}`, operation: 'find', schema: 'Notice', inputs: {}, filter: {}, assign: {}, auth: 'token', createdAt: now,
        updatedAt: now }));
    await mongo.db().collection('custom_endpoints').insertMany(filler as never[]);
    const r = await define({ name: 'oneTooMany', operation: 'find', schema: 'Notice' });
    expect([r.status, r.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(r.body.message).toContain('1000');
    // Paged like every list.
    const last = await svc.http('GET', '/database/customEndpoints?skip=990&limit=1000');
    expect([last.body.count, last.body.endpoints.length]).toEqual([1000, 10]);
  } finally {
    await mongo.db().collection('custom_endpoints').deleteMany({ _id: { $regex: '^filler' } } as never);
    await mongo.close();
  }
});
