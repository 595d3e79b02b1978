// API tokens are stored as SHA-256 digests and verified without a slow hash, and a token stored with bcrypt by an
// earlier version still opens: the records are read and written in MongoDB itself, so this file runs on the stack.
import { createHash } from 'node:crypto';
import { MongoClient } from 'mongodb';
import bcrypt from 'bcrypt';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

it('stores API tokens as SHA-256 digests, accepts them, and still accepts a token stored with bcrypt before', async () => {
  const jwt = (await svc.http('POST', '/login', { body: { username: 'admin', password: 'test-admin-password' }, headers: {} })).body.token as string;
  const made = await svc.http('POST', '/api-tokens', { body: { name: 'ci' }, headers: { authorization: `Bearer ${jwt}` } });
  expect(made.status).toBe(201);
  const token = made.body.token as string;
  expect((await svc.http('GET', '/authorization/resources', { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  const mongo = await MongoClient.connect(svc.config.MONGO_URL);
  try {
    const tokens = mongo.db().collection<{ _id: string; tokenPrefix: string; hash: string }>('api_tokens');
    const stored = await tokens.findOne({ _id: made.body.tokenPrefix });
    expect(stored?.hash).toBe(`sha256:${createHash('sha256').update(token).digest('hex')}`);
    // A token made by an earlier version: its record holds a bcrypt hash.
    const legacy = `cdt_LEGACY01${'b'.repeat(35)}`;
    await tokens.insertOne({ ...stored!, _id: legacy.slice(0, 12), tokenPrefix: legacy.slice(0, 12), hash: await bcrypt.hash(legacy, 4) });
    expect((await svc.http('GET', '/authorization/resources', { headers: { authorization: `Bearer ${legacy}` } })).status).toBe(200);
    expect((await svc.http('GET', '/authorization/resources', { headers: { authorization: `Bearer ${legacy.slice(0, -1)}c` } })).status).toBe(401);
  } finally {
    await mongo.close();
  }
  expect((await svc.http('GET', '/authorization/resources', { headers: { authorization: `Bearer ${token.slice(0, -2)}zz` } })).status).toBe(401);
});
