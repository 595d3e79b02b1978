// The S3 provider against a real S3-compatible server (gofakes3, built from the Go module proxy): streamed multipart
// uploads, ranges, replacement and deletion, and files written before a provider switch still read from where they are.
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeS3, type FakeS3 } from '../support/gofakes3.js';
import { uploadBase64, uploadFile } from '../support/multipart.js';
import { startService, type TestService } from '../support/service.js';
import { sendUpload, UNSTORABLE_UPLOADS } from '../support/unstorable-uploads.js';

let s3: FakeS3;
let svc: TestService;
let dir: string;
let token: string;
let objects: () => Promise<string[]>;

beforeAll(async () => {
  s3 = await startFakeS3();
  // The provider takes credentials from the AWS environment, as the README says; gofakes3 accepts any.
  process.env.AWS_ACCESS_KEY_ID = 'test-key';
  process.env.AWS_SECRET_ACCESS_KEY = 'test-secret';
  dir = await mkdtemp(join(tmpdir(), 'authz-s3-test-'));
  svc = await startService();
  expect((await svc.http('PATCH', '/config/storage', { body: { dir } })).status).toBe(200);
  const account = { email: 'dana@s3.example', password: 'correct horse' };
  expect((await svc.http('POST', `${svc.client}/authentication/local/new`, { body: account, headers: {} })).status).toBe(201);
  token = (await svc.http('POST', `${svc.client}/authentication/local`, { body: account, headers: {} })).body.accessToken;
  const client = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true });
  objects = async () => ((await client.send(new ListObjectsV2Command({ Bucket: s3.bucket }))).Contents ?? []).map((o) => o.Key!);
}, 180_000);
afterAll(async () => {
  await svc?.stop();
  await s3?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const auth = () => ({ authorization: `Bearer ${token}` });
const get = (path: string, headers: Record<string, string> = {}) => fetch(`${svc.client}${path}`, { headers: { ...auth(), ...headers } });

it('keeps files on S3 once the provider is switched; older local files are still read from disk', async () => {
  const local = await svc.http('POST', `${svc.client}/storage/upload`, { body: { name: 'local.txt', data: Buffer.from('on disk').toString('base64') }, headers: auth() });
  expect(local.status).toBe(201);
  const set = await svc.http('PATCH', '/config/storage', { body: { provider: 's3', s3: { endpoint: s3.endpoint, bucket: s3.bucket } } });
  expect(set.status).toBe(200);

  // 12 MB: three parts of a streamed multipart upload to S3.
  const content = randomBytes(12 * 1024 * 1024);
  const path = join(dir, 'twelve.bin');
  await writeFile(path, content);
  const up = await uploadFile(`${svc.client}/storage/upload`, token, path, { name: 'twelve.bin', folder: 's3' });
  expect([up.status, up.body.size]).toEqual([201, content.length]);
  expect(await objects()).toHaveLength(1);
  const whole = await get(`/storage/file/data/${up.body._id}`);
  expect(whole.status).toBe(200);
  expect(Buffer.from(await whole.arrayBuffer()).equals(content)).toBe(true);
  const part = await get(`/storage/file/data/${up.body._id}`, { range: 'bytes=6000000-6000009' });
  expect(part.status).toBe(206);
  expect(part.headers.get('content-range')).toBe(`bytes 6000000-6000009/${content.length}`);
  expect(Buffer.from(await part.arrayBuffer())).toEqual(content.subarray(6000000, 6000010));

  const json = await uploadBase64(`${svc.client}/storage/upload`, token, path, 'twelve.json.bin');
  expect([json.status, json.body.size]).toEqual([201, content.length]);
  expect(await objects()).toHaveLength(2);

  // Replacing content writes a new object and removes the old one.
  const next = join(dir, 'next.txt');
  await writeFile(next, 'replaced');
  const replaced = await uploadFile(`${svc.client}/storage/upload/${json.body._id}`, token, next, {}, 'PATCH');
  expect([replaced.status, replaced.body.size]).toEqual([200, 8]);
  expect(await (await get(`/storage/file/data/${json.body._id}`)).text()).toBe('replaced');
  expect(await objects()).toHaveLength(2);

  // The file uploaded before the switch is read from the disk it was written to.
  expect(await (await get(`/storage/file/data/${local.body._id}`)).text()).toBe('on disk');

  for (const id of [up.body._id, json.body._id]) {
    expect((await svc.http('DELETE', `${svc.client}/storage/file/${id}`, { headers: auth() })).body).toEqual({ deleted: true });
  }
  expect(await objects()).toEqual([]);
  expect((await get(`/storage/file/data/${up.body._id}`)).status).toBe(404);
  await svc.http('PATCH', '/config/storage', { body: { provider: null, s3: null } });
}, 120_000);

it('refuses a name, folder or filename the store cannot hold with 400 naming it, leaving no object in the bucket', async () => {
  expect((await svc.http('PATCH', '/config/storage', { body: { provider: 's3', s3: { endpoint: s3.endpoint, bucket: s3.bucket } } })).status).toBe(200);
  try {
    const before = await objects();
    const existing = await svc.http('POST', `${svc.client}/storage/upload`, { body: { name: 'keep.txt', data: Buffer.from('kept').toString('base64') }, headers: auth() });
    expect(existing.status).toBe(201);
    for (const u of UNSTORABLE_UPLOADS) {
      for (const [method, path] of [['POST', '/storage/upload'], ['PATCH', `/storage/upload/${existing.body._id}`]] as const) {
        const r = await sendUpload(`${svc.client}${path}`, token, u, method);
        expect([u.label, method, r.status, r.body.code, r.body.message]).toEqual([u.label, method, 400, u.code ?? 'VALIDATION_FAILED', expect.stringContaining(u.path)]);
      }
    }
    expect(await objects()).toHaveLength(before.length + 1);
    expect(await (await get(`/storage/file/data/${existing.body._id}`)).text()).toBe('kept');
    expect((await svc.http('DELETE', `${svc.client}/storage/file/${existing.body._id}`, { headers: auth() })).status).toBe(200);
    expect(await objects()).toEqual(before);
  } finally {
    await svc.http('PATCH', '/config/storage', { body: { provider: null, s3: null } });
  }
}, 60_000);

it('is not ready with READY_REQUIRED_MODULES=storage while the S3 provider cannot be reached', async () => {
  expect((await svc.http('PATCH', '/config/storage', { body: { provider: 's3', s3: { endpoint: s3.endpoint, bucket: s3.bucket } } })).status).toBe(200);
  const required = await startService({ READY_REQUIRED_MODULES: 'storage' }, { wipe: false });
  try {
    const up = await required.http('GET', '/ready');
    expect([up.status, up.body.checks['module:storage']]).toEqual([200, { status: 'pass', durationMs: expect.any(Number) }]);
    // The main service (storage not required) stays ready through the outage.
    await s3.stop();
    await new Promise((r) => setTimeout(r, 1100)); // past the reuse of the last report
    const down = await required.http('GET', '/ready');
    expect([down.status, down.body.status, down.body.checks['module:storage']])
      .toEqual([503, 'not-ready', { status: 'fail', durationMs: expect.any(Number), message: 'down' }]);
    expect((await svc.http('GET', '/ready')).status).toBe(200);
  } finally {
    await required.stop();
    await svc.http('PATCH', '/config/storage', { body: { provider: null, s3: null } });
  }
}, 60_000);
