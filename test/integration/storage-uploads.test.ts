// Storage uploads over real HTTP: malformed and unstorable uploads refused keeping nothing, size limits enforced while
// the body streams (records, sharing, links: storage.test.ts; 50 MB with flat memory: storage-streamed.test.ts).
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { readAnswer, streamBody } from '../support/multipart.js';
import { sendUpload, UNSTORABLE_UPLOADS } from '../support/unstorable-uploads.js';
import { storageService, type Account } from '../support/storage-service.js';

const st = storageService();
const { client, raw, bearer, multipart, stored } = st;
let alice: Account;
beforeAll(async () => {
  alice = await st.account('alice@files.example');
});

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
    await bad({ headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: '--x\r\nContent-Disposition: form-data; name="other"; filename="a"\r\n\r\nhi\r\n--x--\r\n' },
      400);
    await bad({ headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nhi\r\n--x--\r\n' }, 400);
    const escaped = await client('POST', '/storage/upload', alice.token, { name: 'caf\u00e9 \\"x\\".txt', data: 'aGVs\\/bG8='.replace('\\/', 'b') });
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

/** One request on `agent` (one keep-alive connection), given up after 5 s: a status 0 is an unanswered request. */
function onConnection(agent: Agent, path: string, token: string, contentType: string, body: string): Promise<{ status: number; connection?: string }> {
  return new Promise((resolve) => {
    const url = new URL(`${st.svc.client}${path}`);
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, timeout: 5000,
      headers: { authorization: `Bearer ${token}`, 'content-type': contentType, 'content-length': Buffer.byteLength(body) } }, (res) => {
      void readAnswer(res).then((a) => resolve({ status: a.status, connection: a.headers.connection }), () => resolve({ status: 0 }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0 }));
    req.end(body);
  });
}

describe('storage uploads: a keep-alive connection after a refused upload', () => {
  it('answers the next request on the connection when an upload was refused before its body was read to the end', async () => {
    const json = 'application/json';
    // Refused after the first member, with most of the body unread: a long second member follows.
    const refused = [
      ['a member that is not text', `{"name":{"a":1},"data":"${'QUFB'.repeat(40_000)}"}`],
      ['a NUL in the name', `{"name":"a\\u0000b","data":"${'QUFB'.repeat(40_000)}"}`],
      ['not an object', `5${' '.repeat(160_000)}`],
    ] as const;
    for (const [label, body] of refused) {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const first = await onConnection(agent, '/storage/upload', alice.token, json, body);
        const next = await onConnection(agent, '/storage/upload', alice.token, json, '{"name":"after.txt","data":"aGk="}');
        expect([label, first.status, next.status]).toEqual([label, 400, 201]);
      } finally {
        agent.destroy();
      }
    }
  });
});

/** Multipart parts up to the file's bytes: the field `name` twice (refused once the second is read), then the file part's head. */
const TWICE = ['--X', 'Content-Disposition: form-data; name="name"', '', 'a', '--X', 'Content-Disposition: form-data; name="name"', '', 'b', '--X',
  'Content-Disposition: form-data; name="file"; filename="f.bin"', 'Content-Type: application/octet-stream', '', ''].join('\r\n');

/**
 * A chunked multipart upload refused at its start that goes on sending up to `total` bytes, on a socket of its own:
 * the status line it was answered, the bytes it got to send, and whether the server closed the connection first.
 */
function endlessUpload(token: string, total: number): Promise<{ status: string; sent: number; closed: boolean }> {
  const url = new URL(st.svc.client);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    let sent = 0;
    let closed = false;
    socket.on('data', (d) => void (answer += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
    });
    const chunk = (data: Buffer | string) => `${Buffer.byteLength(data).toString(16)}\r\n`;
    const write = (data: Buffer | string) => new Promise<void>((r) => (socket.write(data) ? r() : socket.once('drain', r)));
    socket.on('connect', async () => {
      await write(`POST /storage/upload HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: multipart/form-data; boundary=X\r\n`
        + `Transfer-Encoding: chunked\r\n\r\n${chunk(TWICE)}${TWICE}\r\n`);
      const block = Buffer.alloc(1024 * 1024, 0x61);
      while (sent < total && !closed && !socket.destroyed) {
        await Promise.race([write(Buffer.concat([Buffer.from(chunk(block)), block, Buffer.from('\r\n')])), new Promise((r) => socket.once('close', r))]);
        sent += block.length;
      }
      // A moment for a close on its way, then the verdict.
      await new Promise((r) => setTimeout(r, 200));
      resolve({ status: answer.split('\r\n')[0] ?? '', sent, closed });
      socket.destroy();
    });
  });
}

describe('storage uploads: what is left of a refused multipart body', () => {
  it('answers the next request on a keep-alive connection after a multipart upload refused midway', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await onConnection(agent, '/storage/upload', alice.token, 'multipart/form-data; boundary=X', `${TWICE}${'a'.repeat(300_000)}\r\n--X--\r\n`);
      const next = await onConnection(agent, '/storage/upload', alice.token, 'application/json', '{"name":"after-multipart.txt","data":"aGk="}');
      expect([first.status, next.status]).toEqual([400, 201]);
    } finally {
      agent.destroy();
    }
  });

  it("drops at most the transport's bound of it, then closes the connection, keeping no part of the file read with it", async () => {
    const before = await stored();
    const total = 160 * 1024 * 1024;
    const r = await endlessUpload(alice.token, total);
    expect(r.status).toBe('HTTP/1.1 400 Bad Request');
    expect(r.closed).toBe(true);
    expect(r.sent).toBeLessThan(total);
    // The file part came in the read that refused the body: its start was once written to a partial file, left open.
    const partial = join(st.dir, '.partial');
    for (let i = 0; i < 20 && (await readdir(partial).catch(() => [])).length > 0; i++) await new Promise((res) => setTimeout(res, 100));
    expect(await readdir(partial).catch(() => [])).toEqual([]);
    expect(await stored()).toEqual(before);
  });
});

describe('storage uploads: a client that goes away mid-file', () => {
  it('leaves no partial file when the connection is cut while the file part streams', async () => {
    const before = await stored();
    const url = new URL(st.svc.client);
    const head = ['--X', 'Content-Disposition: form-data; name="file"; filename="cut.bin"', 'Content-Type: application/octet-stream', '', ''].join('\r\n');
    const socket = connect(Number(url.port), url.hostname);
    socket.on('error', () => undefined);
    await new Promise((r) => socket.once('connect', r));
    socket.write(`POST /storage/upload HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${alice.token}\r\n`
      + `Content-Type: multipart/form-data; boundary=X\r\nContent-Length: ${10 * 1024 * 1024}\r\n\r\n${head}`);
    socket.write(Buffer.alloc(200_000, 0x62));
    // Time for the bytes to reach the partial file, then the client is gone.
    await new Promise((r) => setTimeout(r, 300));
    socket.destroy();
    const partial = join(st.dir, '.partial');
    for (let i = 0; i < 30 && (await readdir(partial).catch(() => [])).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await readdir(partial).catch(() => [])).toEqual([]);
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
