// A state of 5,000 tuples (in the slow tier): its export is streamed in pieces and taken back as NDJSON and as one JSON
// document past BODY_LIMIT; one documented bound (STATE_IMPORT_LIMIT) holds both formats. The limits are set below the
// export's size (about 330 KB) rather than the export grown past the defaults: 20,000 tuples took 3.5 minutes here,
// each import checking every tuple in FerretDB.
import { startService, type TestService } from '../support/service.js';

const NDJSON = 'application/x-ndjson';
/** Tuples written (20 bulk writes of a fifth of the documents each, 4 users); the body limit is below their JSON. */
const PER_WRITE = 250;
const TUPLES = 20 * PER_WRITE;
const BODY_LIMIT = '128kb';
let svc: TestService;
afterEach(async () => {
  await svc?.stop();
});

const ndjsonImport = (s: TestService, text: string, query = '') => s.http('POST', `/state/import${query}`, { raw: text, headers: { ...s.asAdmin, 'content-type': NDJSON } });

it('streams a large export in pieces and takes it back as NDJSON, and as one JSON document past BODY_LIMIT', async () => {
  svc = await startService({ BODY_LIMIT });
  expect((await svc.http('POST', '/authorization/resources', { body: { name: 'Doc', relations: { viewer: ['User'] }, permissions: { read: ['viewer'] } } })).status).toBe(200);
  const resources = Array.from({ length: 5 * PER_WRITE }, (_, i) => `Doc:d${i}`);
  const writes = await Promise.all(
    Array.from({ length: 20 }, (_, k) =>
      svc.http('POST', '/authorization/relations/many', {
        body: { subject: `User:u${k % 4}`, relation: 'viewer', resources: resources.slice(Math.floor(k / 4) * PER_WRITE, Math.floor(k / 4) * PER_WRITE + PER_WRITE) },
      })),
  );
  expect(writes.map((w) => w.status)).toEqual(Array(20).fill(200));
  const res = await fetch(`${svc.admin}/state/export?tuples=true&format=ndjson`, { headers: svc.asAdmin });
  expect(res.headers.get('transfer-encoding')).toBe('chunked');
  expect(res.headers.get('content-length')).toBeNull();
  const text = await res.text();
  expect(text.trim().split('\n')).toHaveLength(1 + TUPLES + 1);
  const again = await ndjsonImport(svc, text, '?dryRun=true');
  expect(again.body.relations).toEqual({ created: 0, existing: TUPLES, removed: 0 });

  // The JSON export of the same state is past BODY_LIMIT: it is streamed to a temporary file like the NDJSON.
  const json = await (await fetch(`${svc.admin}/state/export?tuples=true`, { headers: svc.asAdmin })).text();
  expect(Buffer.byteLength(json)).toBeGreaterThan(2 * 128 * 1024);
  const jsonImport = (s: TestService, body: string, query = '') =>
    s.http('POST', `/state/import${query}`, { raw: body, headers: { ...s.asAdmin, 'content-type': 'application/json' } });
  const dry = await jsonImport(svc, json, '?dryRun=true');
  expect([dry.status, dry.body.relations, dry.body.grants]).toEqual([200, { created: 0, existing: TUPLES, removed: 0 }, { created: 0, existing: 0, removed: 0 }]);
  // Two tuples gone: a real import of the document puts them back, and a prune with it removes nothing.
  for (const tuple of [`User:u0#viewer@Doc:d${5 * PER_WRITE - 1}`, `User:u1#viewer@Doc:d${5 * PER_WRITE - 1}`]) {
    const found = (await svc.http('GET', `/authorization/relations?search=${encodeURIComponent(tuple)}`)).body.relations;
    expect(found).toHaveLength(1);
    expect((await svc.http('DELETE', `/authorization/relations/${encodeURIComponent(found[0]._id)}`)).status).toBe(200);
  }
  const applied = await jsonImport(svc, json, '?prune=true');
  expect([applied.status, applied.body.relations]).toEqual([200, { created: 2, existing: TUPLES - 2, removed: 0 }]);
  const pretty = JSON.stringify(JSON.parse(json), null, 2); // whitespace anywhere, as an editor writes the file
  expect((await jsonImport(svc, pretty, '?dryRun=true')).body.relations).toEqual({ created: 0, existing: TUPLES, removed: 0 });
  // A bad item is named by its place in the document, and nothing is imported.
  const broken = json.replace('"relation":"viewer"', '"relation":"nope"');
  const refused = await jsonImport(svc, broken);
  expect([refused.status, refused.body.code, refused.body.details[0].path]).toEqual([422, 'RELATION_NOT_DEFINED', expect.stringMatching(/^relations\.\d+$/)]);

  // One bound for both formats, named in the 413.
  const small = await startService({ BODY_LIMIT, STATE_IMPORT_LIMIT: '200kb' }, { wipe: false });
  try {
    for (const r of [await jsonImport(small, json, '?dryRun=true'), await ndjsonImport(small, text, '?dryRun=true')]) {
      expect([r.status, r.body.code, r.body.message]).toEqual([413, 'PAYLOAD_TOO_LARGE', expect.stringContaining('204800 bytes (STATE_IMPORT_LIMIT, for JSON and NDJSON alike')]);
    }
  } finally {
    await small.stop();
  }
}, 600_000);
