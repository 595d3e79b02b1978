// Database module hardening (issue 19): field names inherited by every object are no schema fields (a collection has
// one schema whichever path would give it a second: database-collections.test.ts, on the stack).
import { clientAccount } from '../support/client-account.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
const LIMITS = JSON.stringify({ routes: { 'POST /authentication/local/new': { windowMs: 60_000, max: 1000 } } });
beforeAll(async () => {
  svc = await startService({ ROUTER_RATE_LIMITS: LIMITS });
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

const client = (method: string, path: string, token: string, body?: unknown, raw?: string) =>
  svc.http(method, `${svc.client}${path}`, { body, raw, headers: { authorization: `Bearer ${token}` } });

const account = (email: string) => clientAccount(svc, email);

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
    for (const query of ['constructor=x', 'toString=1', 'hasOwnProperty=true', '__proto__=1', 'sort=constructor', 'sort=-toString', 'sort=__proto__', 'populate=constructor',
      'populate=__proto__']) {
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
