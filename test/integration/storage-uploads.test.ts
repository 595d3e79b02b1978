// Storage uploads over real HTTP: malformed and unstorable uploads refused keeping nothing, size limits enforced while
// the body streams, and 50 MB streamed up and down with flat memory (records, sharing, links: storage.test.ts).
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { childService } from '../support/child-service.js';
import { downloadFile, streamBody, uploadBase64, uploadFile } from '../support/multipart.js';
import { sendUpload, UNSTORABLE_UPLOADS } from '../support/unstorable-uploads.js';
import { storageService, type Account } from '../support/storage-service.js';

const st = storageService();
const { client, raw, bearer, multipart, stored } = st;
let alice: Account;
beforeAll(async () => { alice = await st.account('alice@files.example'); });

describe('storage uploads: malformed and unstorable', () => {
  it('refuses malformed uploads with 4xx and keeps nothing', async () => {
    const before = await stored();
    const bad = async (init: RequestInit, status: number) => {
      const r = await raw('/storage/upload', { method: 'POST', ...init, headers: { ...bearer(alice.token), ...(init.headers as Record<string, string>) } });
      expect([r.status, init.body?.toString().slice(0, 60)]).toEqual([status, init.body?.toString().slice(0, 60)]);
    };
    const json = { 'content-type': 'application/json' };
    await bad({ headers: json, body: '{"name":"x","data":"aGVsbG8' }, 400);
    await bad({ headers: json, body: '{"name":"x","data":"aGVs*G8="}' }, 400);
    await bad({ headers: json, body: '{"name":"x"}' }, 400);
    await bad({ headers: json, body: '{"data":"aGVsbG8="}' }, 400);
    await bad({ headers: json, body: '{"name":"x","data":"aGVsbG8=","extra":1}' }, 400);
    await bad({ headers: json, body: '{"name":{"a":1},"data":"aGVsbG8="}' }, 400);
    await bad({ headers: json, body: '{"name":"x","data":"aGVsbG8=","data":"aGVsbG8="}' }, 400);
    await bad({ headers: json, body: '[1,2]' }, 400);
    await bad({ headers: json, body: '{"name":"x","data":"aGVsbG8="} trailing' }, 400);
    await bad({ headers: { 'content-type': 'text/plain' }, body: 'hello' }, 400);
    await bad({ headers: { 'content-type': 'multipart/form-data' }, body: 'no boundary' }, 400);
    await bad({ headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: '--x\r\nContent-Disposition: form-data; name="other"; filename="a"\r\n\r\nhi\r\n--x--\r\n' }, 400);
    await bad({ headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nhi\r\n--x--\r\n' }, 400);
    const escaped = await client('POST', '/storage/upload', alice.token, { name: 'caf\u00e9 \\"x\\".txt', data: 'aGVs\\/bG8=' .replace('\\/', 'b') });
    expect(escaped.status).toBe(201);
    expect(escaped.body.name).toBe('caf\u00e9 \\"x\\".txt');
    await client('DELETE', `/storage/file/${escaped.body._id}`, alice.token);
    expect(await stored()).toEqual(before);
  });

  it('refuses a name, folder or filename the store cannot hold (NUL, lone surrogate, $ key) with 400 naming it, keeping nothing', async () => {
    const before = await stored();
    const files = (await client('GET', '/storage/files?limit=1000', alice.token)).body.count as number;
    const existing = await client('POST', '/storage/upload', alice.token, { name: 'keep.txt', data: Buffer.from('kept').toString('base64') });
    expect(existing.status).toBe(201);
    for (const u of UNSTORABLE_UPLOADS) {
      for (const [method, path] of [['POST', '/storage/upload'], ['PATCH', `/storage/upload/${existing.body._id}`]] as const) {
        const r = await sendUpload(`${st.svc.client}${path}`, alice.token, u, method);
        expect([u.label, method, r.status, r.body.code, r.body.message]).toEqual([u.label, method, 400, u.code ?? 'VALIDATION_FAILED', expect.stringContaining(u.path)]);
      }
    }
    // Nothing new on disk but the one good file, no new record, and the replaced file is as it was.
    expect((await stored()).length).toBe(before.length + 1);
    expect((await client('GET', '/storage/files?limit=1000', alice.token)).body.count).toBe(files + 1);
    expect((await client('GET', `/storage/file/${existing.body._id}`, alice.token)).body).toEqual(existing.body);
    expect(await (await raw(`/storage/file/data/${existing.body._id}`, { headers: bearer(alice.token) })).text()).toBe('kept');
    await client('DELETE', `/storage/file/${existing.body._id}`, alice.token);
    expect(await stored()).toEqual(before);
  });
});

describe('storage uploads: size limits while streaming', () => {
  it('refuses a file over storage.maxFileBytes with 413 while it streams, keeping nothing', async () => {
    expect((await st.svc.http('PATCH', '/config/storage', { body: { maxFileBytes: 1000 } })).status).toBe(200);
    const before = await stored();
    const big = randomBytes(5000);
    const m = await multipart('POST', '/storage/upload', alice.token, big);
    expect([m.status, m.body.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    const j = await client('POST', '/storage/upload', alice.token, { name: 'big', data: big.toString('base64') });
    expect([j.status, j.body.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    const fits = await multipart('POST', '/storage/upload', alice.token, randomBytes(1000));
    expect([fits.status, fits.body.message]).toEqual([201, undefined]);
    await st.svc.http('PATCH', '/config/storage', { body: { maxFileBytes: null } });
    expect((await stored()).length).toBe(before.length + 1);
    expect((await readdir(join(st.dir, '.partial'))).length).toBe(0);
  });

  it('bounds the whole body by what a file of maxFileBytes needs: padding, whitespace and a multipart preamble are refused early', async () => {
    expect((await st.svc.http('PATCH', '/config/storage', { body: { maxFileBytes: 1000 } })).status).toBe(200);
    const before = await stored();
    try {
      const url = `${st.svc.client}/storage/upload`;
      const json = 'application/json';
      const MB30 = 30 * 1024 * 1024;
      // 30 MB after a 5-byte file: refused long before it is all sent (the answer comes within the first few MB).
      const padding = await streamBody(url, alice.token, json, { head: '{"name":"pad.bin","data":"aGVsbG8=', filler: '=', total: MB30, tail: '"}' });
      expect([padding.status, padding.body.code, padding.body.message]).toEqual([400, 'BAD_REQUEST', expect.stringMatching(/at most two =/)]);
      const spaces = await streamBody(url, alice.token, json, { head: '{"name":"ws.bin","data":"aGVsbG8="', filler: ' ', total: MB30, tail: '}' });
      expect([spaces.status, spaces.body]).toEqual([413, { code: 'PAYLOAD_TOO_LARGE', message: expect.stringMatching(/maxFileBytes/) }]);
      expect(spaces.sent).toBeLessThan(MB30);
      const boundary = 'xx';
      const part = `\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhi\r\n--${boundary}--\r\n`;
      const preamble = await streamBody(url, alice.token, `multipart/form-data; boundary=${boundary}`, { head: '', filler: 'z', total: MB30, tail: part });
      expect([preamble.status, preamble.body]).toEqual([413, { code: 'PAYLOAD_TOO_LARGE', message: expect.stringMatching(/maxFileBytes/) }]);
      const epilogue = await streamBody(url, alice.token, `multipart/form-data; boundary=${boundary}`, { head: part.slice(2), filler: 'z', total: MB30, tail: '' });
      expect(epilogue.status).toBe(413);
      // A file at the limit still fits, in pretty-printed JSON with escaped slashes too.
      const full = Buffer.alloc(1000, 0xff); // base64 of 0xff bytes is all '/'
      const pretty = JSON.stringify({ name: 'full.bin', data: full.toString('base64') }, null, 2).replace(/\//g, '\\/');
      const fits = await raw('/storage/upload', { method: 'POST', headers: { ...bearer(alice.token), 'content-type': json }, body: pretty });
      expect([fits.status, (await fits.json()).size]).toEqual([201, 1000]);
      // The service still answers on fresh connections, and kept only the file that fits.
      expect((await client('GET', '/storage/files', alice.token)).status).toBe(200);
    } finally {
      await st.svc.http('PATCH', '/config/storage', { body: { maxFileBytes: null } });
    }
    expect((await stored()).length).toBe(before.length + 1);
    expect((await readdir(join(st.dir, '.partial'))).length).toBe(0);
  });
});

describe('storage uploads: 50 MB streamed', () => {
  it('streams a 50 MB upload (multipart and base64 JSON) and download with flat memory in the service process', async () => {
    const path = join(st.dir, '..', `authz-50mb-${process.pid}.bin`);
    const size = 50 * 1024 * 1024;
    const block = randomBytes(1024 * 1024);
    await writeFile(path, Buffer.alloc(0));
    const hash = createHash('sha256');
    for (let i = 0; i < 50; i++) { await writeFile(path, block, { flag: 'a' }); hash.update(block); }
    const digest = hash.digest('hex');
    // The service in a process of its own, so its resident memory is the service's alone.
    const childLog: string[] = [];
    const child = await childService({}, undefined, { output: childLog });
    await child.start();
    try {
      const email = { email: 'big@files.example', password: 'correct horse' };
      const post = (p: string, body: unknown) => fetch(`${child.client}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect((await post('/authentication/local/new', email)).status).toBe(201);
      const token = (await (await post('/authentication/local', email)).json()).accessToken as string;
      const rss = async () => Number(/VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${child.pid()}/status`, 'utf8'))![1]) / 1024;
      const watch = async () => {
        const base = await rss();
        let peak = base;
        let on = true;
        const sampling = (async () => { while (on) { peak = Math.max(peak, await rss()); await new Promise((r) => setTimeout(r, 10)); } })();
        return async () => { on = false; await sampling; return peak - base; };
      };
      const mb = (n: number) => `${n.toFixed(1)} MB`;
      // A small upload first: the code each path loads and compiles the first time is not what is measured.
      const small = join(st.dir, '..', `authz-small-${process.pid}.bin`);
      await writeFile(small, block);
      const warm = await uploadFile(`${child.client}/storage/upload`, token, small, { name: 'warm.bin' });
      expect((await uploadBase64(`${child.client}/storage/upload`, token, small, 'warm.json.bin')).status).toBe(201);
      await fetch(`${child.client}/storage/file/${warm.body._id}`, { method: 'DELETE', headers: bearer(token) });
      await rm(small);
      // Buffers already passed on are freed when the collector runs, which V8 does after some tens of MB of them:
      // the bound is below the file's size, which holding the file whole would exceed.

      let stop = await watch();
      let started = performance.now();
      const up = await uploadFile(`${child.client}/storage/upload`, token, path, { name: 'big.bin' });
      let growth = await stop();
      expect([up.status, up.body.size]).toEqual([201, size]);
      console.log(`50 MB multipart upload: ${(performance.now() - started).toFixed(0)} ms; service RSS growth at peak ${mb(growth)}`);
      expect(growth).toBeLessThan(40);

      stop = await watch();
      started = performance.now();
      const asJson = await uploadBase64(`${child.client}/storage/upload`, token, path, 'big.json.bin');
      growth = await stop();
      if (asJson.status !== 201) console.log(childLog.join('').slice(-3000));
      expect([asJson.status, asJson.body.size]).toEqual([201, size]);
      console.log(`50 MB base64 JSON upload (67 MB body): ${(performance.now() - started).toFixed(0)} ms; service RSS growth at peak ${mb(growth)}`);
      expect(growth).toBeLessThan(40);

      const back = join(st.dir, '..', `authz-50mb-back-${process.pid}.bin`);
      for (const id of [up.body._id, asJson.body._id]) {
        stop = await watch();
        started = performance.now();
        const got = await downloadFile(`${child.client}/storage/file/data/${id}`, bearer(token), back);
        growth = await stop();
        expect([got.status, got.headers['content-length']]).toEqual([200, String(size)]);
        console.log(`50 MB download: ${(performance.now() - started).toFixed(0)} ms; service RSS growth at peak ${mb(growth)}`);
        const again = createHash('sha256');
        for await (const c of createReadStream(back)) again.update(c as Buffer);
        expect(again.digest('hex')).toBe(digest);
        const tail = await fetch(`${child.client}/storage/file/data/${id}`, { headers: { ...bearer(token), range: `bytes=${size - 10}-` } });
        expect([tail.status, Buffer.from(await tail.arrayBuffer())]).toEqual([206, block.subarray(block.length - 10)]);
        expect(await (await fetch(`${child.client}/storage/file/${id}`, { method: 'DELETE', headers: bearer(token) })).json()).toEqual({ deleted: true });
      }
      await rm(back, { force: true });
    } finally {
      await child.kill('SIGTERM');
      await rm(path, { force: true });
    }
  }, 180_000);
});
