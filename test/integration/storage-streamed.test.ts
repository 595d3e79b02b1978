// 50 MB streamed up and down with flat memory, measured in a service process of its own on the real stack (the other
// uploads: storage-uploads.test.ts).
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childService } from '../support/child-service.js';
import { downloadFile, uploadBase64, uploadFile } from '../support/multipart.js';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Starts sampling `rss` every 10 ms; the stop it answers says by how much the peak exceeded the start (MB). */
async function peakGrowth(rss: () => Promise<number>) {
  const base = await rss();
  let peak = base;
  let on = true;
  const sampling = (async () => {
    while (on) {
      peak = Math.max(peak, await rss());
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  return async () => {
    on = false;
    await sampling;
    return peak - base;
  };
}

describe('storage uploads: 50 MB streamed', () => {
  it('streams a 50 MB upload (multipart and base64 JSON) and download with flat memory in the service process', async () => {
    const path = join(tmpdir(), `authz-50mb-${process.pid}.bin`);
    const size = 50 * 1024 * 1024;
    const block = randomBytes(1024 * 1024);
    await writeFile(path, Buffer.alloc(0));
    const hash = createHash('sha256');
    for (let i = 0; i < 50; i++) {
      await writeFile(path, block, { flag: 'a' });
      hash.update(block);
    }
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
      const watch = () => peakGrowth(rss);
      const mb = (n: number) => `${n.toFixed(1)} MB`;
      // A small upload first: the code each path loads and compiles the first time is not what is measured.
      const small = join(tmpdir(), `authz-small-${process.pid}.bin`);
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

      const back = join(tmpdir(), `authz-50mb-back-${process.pid}.bin`);
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
